import { onStatement } from '../../src/db/database';

/** Runs `run` and returns its result with every SQL statement it caused (statement counts are deterministic). */
export async function countStatements<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = onStatement((sql) => statements.push(sql));
  try {
    return { result: await run(), statements };
  } finally {
    stop();
  }
}

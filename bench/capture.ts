import pg from 'pg';

/**
 * "The same SQL, run directly": records what the service sends to PostgreSQL
 * while one request runs (text and values, at the node-postgres level, so
 * Sequelize's statements and the named hot statements alike), then replays
 * exactly those statements through a plain pg pool, with the same
 * concurrency (statements the service had in flight together are replayed
 * together).
 */
export interface CapturedStatement {
  text: string;
  values: unknown[];
  /** The prepared-statement name the service used, if any (replayed named too). */
  name?: string;
  /** Statements of one wave were issued while an earlier one of the wave was still running. */
  wave: number;
}

type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;

export async function captureStatements(run: () => Promise<void>): Promise<CapturedStatement[]> {
  const captured: CapturedStatement[] = [];
  const original = pg.Client.prototype.query as unknown as QueryFn;
  let inFlight = 0;
  let wave = -1;
  (pg.Client.prototype as unknown as { query: QueryFn }).query = function capture(this: pg.Client, ...args: unknown[]) {
    const [config, values] = args;
    const text = typeof config === 'string' ? config : (config as { text: string }).text;
    const bound = (typeof config === 'string' ? values : ((config as { values?: unknown[] }).values ?? values)) as unknown[] | undefined;
    // A new pooled connection's own settings (Sequelize's SET …) are not the request's work.
    if (/^\s*SET /i.test(text)) return original.apply(this, args);
    if (inFlight === 0) wave += 1;
    const name = typeof config === 'object' && config !== null ? (config as { name?: string }).name : undefined;
    captured.push({ text, values: Array.isArray(bound) ? bound : [], wave, name });
    inFlight += 1;
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<unknown>).finally(() => (inFlight -= 1));
    }
    inFlight -= 1;
    return result;
  };
  try {
    await run();
  } finally {
    (pg.Client.prototype as unknown as { query: QueryFn }).query = original;
  }
  return captured;
}

/**
 * Replays captured statements wave by wave (each wave's statements at once).
 * Give it a pool with the service's connection settings (JIT off, generic
 * plans for named statements): `replayPool(url)`.
 */
export function replayPool(url: string, max = 10): pg.Pool {
  return new pg.Pool({ connectionString: url, max, options: '-c jit=off -c plan_cache_mode=force_generic_plan' });
}

export function replayer(pool: pg.Pool, statements: CapturedStatement[]): () => Promise<void> {
  const waves = new Map<number, CapturedStatement[]>();
  for (const statement of statements) waves.set(statement.wave, [...(waves.get(statement.wave) ?? []), statement]);
  return async () => {
    for (const wave of waves.values()) {
      await Promise.all(wave.map((statement) => pool.query({ name: statement.name ? `replay_${statement.name}` : undefined, text: statement.text, values: statement.values })));
    }
  };
}

import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { createApp, createHttpServer, type App } from '../../src/app';
import { config } from '../../src/config/config';
import { closeDatabase, connectDatabase } from '../../src/db/database';
import { platform } from '../../src/modules';

/**
 * The real HTTP handler on an ephemeral loopback port, against the run's
 * PostgreSQL. One per test file: `const api = useTestApp();`.
 */
export interface TestApp {
  baseUrl: string;
  app: App;
  /** Only on isolated apps: drops the app's own database. */
  dropDatabase?: () => Promise<void>;
}

/**
 * The real HTTP handler on 127.0.0.1, connected to the database at `url`
 * (the run's by default; the process's one database: one per test file),
 * and how to stop both.
 */
export async function startTestApp(
  url = process.env.DATABASE_URL!,
  options: { poolMax?: number; statementTimeoutMs?: number } = { statementTimeoutMs: config().DB_STATEMENT_TIMEOUT_MS },
): Promise<{ testApp: TestApp; close: () => Promise<void> }> {
  connectDatabase(url, { poolMax: options.poolMax ?? 5, models: platform.models, statementTimeoutMs: options.statementTimeoutMs, jit: config().DB_JIT, logSql: false });
  const app = await createApp();
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    testApp: { baseUrl: `http://127.0.0.1:${port}`, app },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.stop();
      // A database that could not be reached (the fault tests') may fail its close.
      await closeDatabase().catch(() => undefined);
    },
  };
}

/** Starts the app before the file's tests and stops it after. */
export function useTestApp(): TestApp {
  const holder = {} as TestApp;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    void config();
    const started = await startTestApp();
    Object.assign(holder, started.testApp);
    close = started.close;
  });
  afterAll(async () => {
    await close?.();
  });
  return holder;
}

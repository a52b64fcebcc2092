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

export async function startTestApp(): Promise<{ testApp: TestApp; close: () => Promise<void> }> {
  connectDatabase(process.env.DATABASE_URL!, { poolMax: 5, models: platform.models, statementTimeoutMs: config().DB_STATEMENT_TIMEOUT_MS, jit: config().DB_JIT, logSql: false });
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
      await closeDatabase();
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

import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { createApp, createHttpServer } from '../../src/app';
import { closeDatabase, connectDatabase, migrate } from '../../src/db/database';
import { config } from '../../src/config/config';
import { platform } from '../../src/modules';
import type { TestApp } from './test-app';

/**
 * A fresh, migrated database on the run's PostgreSQL server, for tests that
 * break things on purpose (rename tables, drop the database) without touching
 * the database other test files share.
 */
export async function createIsolatedDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `isolated_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: base.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * The real HTTP handler on 127.0.0.1, connected to the database at `url`
 * (the process's one database: one per test file), and how to stop both.
 */
export async function serveAppOn(url: string, options: { poolMax?: number; statementTimeoutMs?: number } = {}): Promise<{ api: TestApp; stop: () => Promise<void> }> {
  connectDatabase(url, { poolMax: options.poolMax ?? 3, models: platform.models, statementTimeoutMs: options.statementTimeoutMs, jit: config().DB_JIT });
  const app = await createApp();
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    api: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, app } as TestApp,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.stop();
      await closeDatabase().catch(() => undefined);
    },
  };
}

/**
 * The real HTTP handler on its own isolated database, for files that break
 * or count things in the database. Use at the top of a file.
 */
export function useIsolatedTestApp(options: { statementTimeoutMs?: number } = {}): TestApp {
  const holder = {} as TestApp;
  let served: Awaited<ReturnType<typeof serveAppOn>>;
  let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  beforeAll(async () => {
    isolated = await createIsolatedDatabase();
    served = await serveAppOn(isolated.url, options);
    Object.assign(holder, served.api, { dropDatabase: () => isolated.drop() });
  });
  afterAll(async () => {
    await served.stop();
    await isolated.drop();
  });
  return holder;
}

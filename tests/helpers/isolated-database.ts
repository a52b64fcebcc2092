import crypto from 'node:crypto';
import { Client } from 'pg';
import { migrate } from '../../src/db/database';
import { startTestApp, type TestApp } from './test-app';

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
 * The real HTTP handler on its own isolated database, for files that break
 * or count things in the database. Use at the top of a file.
 */
export function useIsolatedTestApp(options: { statementTimeoutMs?: number } = {}): TestApp {
  const holder = {} as TestApp;
  let served: Awaited<ReturnType<typeof startTestApp>>;
  let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  beforeAll(async () => {
    isolated = await createIsolatedDatabase();
    served = await startTestApp(isolated.url, { poolMax: 3, ...options });
    Object.assign(holder, served.testApp, { dropDatabase: () => isolated.drop() });
  });
  afterAll(async () => {
    await served.close();
    await isolated.drop();
  });
  return holder;
}

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp, createHttpServer, type App } from '../src/app';
import { config } from '../src/config/config';
import { closeDatabase, connectDatabase, migrate } from '../src/db/database';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { platform } from '../src/modules';

/** What every benchmark shares: a migrated database (BENCH_DATABASE_URL, else a throw-away embedded one) and the app on loopback. */
export function log(message: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/**
 * Runs `run` against a migrated database. The connections run without
 * statement_timeout: the bulk loads of the data generators take longer.
 */
export async function withBenchDatabase(name: string, poolMax: number, run: (url: string) => Promise<void>): Promise<void> {
  let url = process.env.BENCH_DATABASE_URL;
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | null = null;
  let tempDir: string | null = null;
  if (!url) {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-pg-`));
    fs.chmodSync(tempDir, 0o755);
    log(`starting embedded PostgreSQL in ${tempDir}`);
    embedded = await startEmbeddedPostgres({ dataDir: path.join(tempDir, 'pg'), persistent: false, fast: true });
    url = embedded.url;
  }
  try {
    await migrate(url);
    connectDatabase(url, { poolMax, models: platform.models, jit: config().DB_JIT });
    await run(url);
  } finally {
    await closeDatabase();
    await embedded?.stop();
    if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

/** The app on an ephemeral 127.0.0.1 port. */
export async function startService(): Promise<{ app: App; base: string; stop: () => Promise<void> }> {
  const app = await createApp();
  const server: http.Server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Requests wrk left running when it stopped (their sockets already closed) finish before the database is closed.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      server.closeAllConnections();
      await closed;
      await app.stop();
    },
  };
}

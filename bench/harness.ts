import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp, createHttpServer, type App } from '../src/app';
import { config } from '../src/config/config';
import { closeDatabase, connectDatabase, migrate } from '../src/db/database';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { freePort } from '../src/db/free-port';
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

/**
 * The service as operators run it, in processes of its own (the `npm start`
 * command, with WEB_CONCURRENCY workers) on an ephemeral 127.0.0.1 port, against
 * `url` (already migrated). `cpuSeconds` reads the CPU time of the primary
 * and its workers so far (from /proc).
 */
export async function spawnService(url: string, workers: number): Promise<{ base: string; cpuSeconds: () => number; rss: () => number; stop: () => Promise<void> }> {
  const port = await freePort();
  // Exactly as `npm start` runs it (its Node flags included).
  const root = path.resolve(__dirname, '..');
  const [, ...args] = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', WEB_CONCURRENCY: String(workers), SEED_DEMO: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    if (await fetch(`${base}/api/v1/health/ready`).then((response) => response.ok, () => false)) break;
    if (attempt > 600 || child.exitCode !== null) throw new Error(`the service did not start (exit ${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // One worker answering does not mean all of them listen yet.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  // The primary and its workers, found once (the RSS sampler reads only their files, not every process's: reading all
  // of /proc ten times a second took CPU from the service on a two-core machine).
  const pids = procStats()
    .filter(({ pid, fields }) => pid === child.pid || Number(fields[1]) === child.pid)
    .map(({ pid }) => pid);
  /** The primary and its workers: CPU seconds and RSS bytes of each. */
  const tree = () =>
    procStats(pids).map(({ fields }) => ({ cpu: (Number(fields[11]) + Number(fields[12])) / 100, rss: Number(fields[21]) * 4096 }));
  return {
    base,
    cpuSeconds: () => tree().reduce((sum, item) => sum + item.cpu, 0),
    rss: () => tree().reduce((sum, item) => sum + item.rss, 0),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Each process's /proc/<pid>/stat (every process's, or those of `pids`): its command name and the fields after it (state first); processes that ended meanwhile left out. */
export function procStats(pids?: number[]): { pid: number; command: string; fields: string[] }[] {
  return (pids?.map(String) ?? fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)))
    .flatMap((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return [{ pid: Number(pid), command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') }];
      } catch {
        return [];
      }
    });
}

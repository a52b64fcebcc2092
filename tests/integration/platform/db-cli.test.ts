import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * `npm run db:status`, `db:migrate` and `db:seed` while `npm start` runs on
 * the embedded PostgreSQL of DATA_DIR: they use the server's cluster (found
 * from its postmaster.pid) instead of failing to start a second one on its
 * files, and the start banner prints that database's URL.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
let dataDir: string;
let server: ChildProcess;
let banner = '';

/** A shell's environment, not the test run's (its DATABASE_URL and test-only settings). */
function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', SEED_DEMO: 'false', PORT: '0', HOST: '127.0.0.1' };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-platform-db-cli-'));
  fs.chmodSync(dataDir, 0o755);
  server = spawn(process.execPath, ['scripts/run.js', 'src/server.ts'], { cwd: ROOT, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${banner}`)), 90_000);
    server.stdout!.on('data', (chunk: Buffer) => {
      banner += chunk.toString();
      if (banner.includes('Database')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.stderr!.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    server.on('exit', (code) => reject(new Error(`the server exited (${code}): ${banner}`)));
  });
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

async function script(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['scripts/run.js', `src/cli/${name}.ts`], { cwd: ROOT, env: env(), timeout: 60_000 });
  return stdout;
}

it('prints the embedded database in the banner, and the db: scripts use it while the server runs', async () => {
  const url = /Database\s+(postgres:\/\/\S+)/.exec(banner)?.[1];
  expect(url).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/agent_platform$/);
  const status = await script('status');
  expect(status).toContain(`${url} (embedded, run by the server)`);
  expect(status).toContain('nothing pending');
  expect(await script('migrate')).toContain('migrations are up to date');
  expect(await script('seed')).toMatch(/^demo user /);
  // The server is still up and sees what the seed wrote.
  expect(server.exitCode).toBeNull();
}, 120_000);

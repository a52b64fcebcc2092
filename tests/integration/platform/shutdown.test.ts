import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function startServer(env: Record<string, string>): { child: ReturnType<typeof spawn>; ready: Promise<string>; output: () => string } {
  const child = spawn(process.execPath, ['scripts/run.js', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'development', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ready on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited early (${code}): ${output}`)));
  });
  return { child, ready, output: () => output };
}

function exitCode(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

function postgresProcessesFor(dataDir: string): string[] {
  try {
    return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('postgres') && line.includes(dataDir));
  } catch {
    return [];
  }
}

describe('server lifecycle', () => {
  it('starts on the given DATABASE_URL and exits cleanly on SIGTERM after finishing in-flight requests', async () => {
    const server = startServer({ DATABASE_URL: process.env.DATABASE_URL! });
    const base = new URL(await server.ready);
    // A request whose body is still arriving when the signal comes in.
    const body = JSON.stringify({ email: 'not-an-email', password: 'long-enough-password' });
    const inFlight = new Promise<number>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port: base.port, path: '/api/v1/auth/signup', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(10)), 300);
      }, 200);
    });
    const exited = exitCode(server.child);
    expect(await inFlight).toBe(422);
    expect(await exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  }, 60000);

  it('serves from WEB_CONCURRENCY workers sharing one port, with quotas counted across them, and stops them all on SIGTERM', async () => {
    const server = startServer({ DATABASE_URL: process.env.DATABASE_URL!, WEB_CONCURRENCY: '2', RATE_LIMIT_PER_MINUTE: '1000' });
    const base = await server.ready;
    // "ready" comes with the first worker listening; the second may log a moment later on a busy machine.
    const workerPids = () => new Set([...server.output().matchAll(/"worker":(\d+)/g)].map((match) => match[1]));
    for (let waited = 0; workerPids().size < 2 && waited < 20000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(workerPids().size).toBe(2);
    // Both workers count against one quota in PostgreSQL: remaining falls by one per request, whichever worker answers.
    const remaining: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const res = await fetch(`${base}/api/v1/org/nobody/ws`, { headers: { connection: 'close' } });
      expect(res.status).toBe(401);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual(remaining.map((_, index) => remaining[0] - index));
    const exited = exitCode(server.child);
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  }, 60000);

  it('starts an embedded PostgreSQL when DATABASE_URL is unset, keeps its data, and leaves no postgres process behind', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-platform-start-'));
    fs.chmodSync(dataDir, 0o755);
    const env = { DATABASE_URL: '', DATA_DIR: dataDir, SEED_DEMO: 'true' };
    const first = startServer(env);
    const base = await first.ready;
    const health = await fetch(`${base}/api/v1/health/ready`);
    expect(health.status).toBe(200);
    const token = /Bearer ([\w.-]+)/.exec(first.output())![1];
    const created = await fetch(`${base}/api/v1/org/demo/ws`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'kept-across-restarts', name: 'Kept' }),
    });
    expect(created.status).toBe(201);
    const exited = exitCode(first.child);
    first.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);

    // Data survives a restart.
    const second = startServer(env);
    const secondBase = await second.ready;
    const kept = await fetch(`${secondBase}/api/v1/org/demo/ws/kept-across-restarts`, { headers: { authorization: `Bearer ${token}` } });
    expect(kept.status).toBe(200);
    const exitedAgain = exitCode(second.child);
    second.child.kill('SIGTERM');
    expect(await exitedAgain).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120000);
});

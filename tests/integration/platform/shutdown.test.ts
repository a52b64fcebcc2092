import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createIsolatedDatabase } from '../../helpers/isolated-database';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Deadlock guards, not timings. Each spawned server compiles the TypeScript
 * sources in every process it starts (three with WEB_CONCURRENCY=2), which
 * takes minutes on a machine busy with other test runs, so startup gets a
 * long guard; every later step gets its own, and one that overruns fails
 * with the step's name and the server's output instead of jest's timeout.
 */
const STARTUP_MS = 180_000;
const STEP_MS = 30_000;
const TEST_MS = STARTUP_MS * 2 + STEP_MS * 6;

function within<T>(promise: Promise<T>, ms: number, step: string, output: () => string = () => ''): Promise<T> {
  let timer: NodeJS.Timeout;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: not within ${ms / 1000} s\n--- server output ---\n${output()}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

interface Server {
  child: ChildProcess;
  output(): string;
  /** Resolves with the output once `test` finds what it waits for in it (checked as output arrives). */
  waitFor<T>(step: string, test: (output: string) => T | null | undefined, ms?: number): Promise<T>;
  /** The base URL, once the banner says the server (every worker of it) is ready. */
  ready(): Promise<string>;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

function startServer(env: Record<string, string>): Server {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'development', SEED_DEMO: 'false', ...env };
  // A setting for the test suite only, which the server refuses outside NODE_ENV=test.
  delete childEnv.PASSWORD_SCRYPT_LOG_N;
  const child = spawn(process.execPath, ['scripts/run.js', 'src/server.ts'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...waiters]) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      for (const check of [...waiters]) check();
      resolve(code);
    }),
  );
  const waitFor = <T,>(step: string, test: (text: string) => T | null | undefined, ms = STEP_MS): Promise<T> => {
    let check: () => void = () => undefined;
    const found = new Promise<T>((resolve, reject) => {
      check = () => {
        const value = test(output);
        if (value !== null && value !== undefined) resolve(value);
        else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`${step}: the server exited (${child.exitCode ?? child.signalCode})\n${output}`));
      };
      waiters.add(check);
      check();
    });
    return within(found, ms, step, () => output).finally(() => waiters.delete(check));
  };
  return {
    child,
    output: () => output,
    waitFor,
    ready: () => waitFor('the server says it is ready', (text) => /ready on (http:\/\/\S+)/.exec(text)?.[1], STARTUP_MS),
    exited,
  };
}

/** Servers a failed test left behind are stopped (SIGTERM, then SIGKILL), so the run ends by itself. */
async function stopRunning(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STEP_MS);
      await gone;
      clearTimeout(killer);
    }),
  );
}

afterEach(stopRunning);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
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

/** One raw HTTP/1.1 connection, to see exactly what the server sends and when it closes it. */
interface Connection {
  write(text: string): void;
  received(): string;
  /** Resolves once what came back matches `pattern`. */
  until(step: string, pattern: RegExp): Promise<void>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  isClosed(): boolean;
}

async function connect(port: number): Promise<Connection> {
  const socket = net.connect(port, '127.0.0.1');
  await within(new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject)), STEP_MS, 'connecting');
  let received = '';
  let ended = false;
  const waiters = new Set<() => void>();
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
    for (const check of [...waiters]) check();
  });
  const closed = new Promise<void>((resolve) => {
    const end = () => {
      ended = true;
      socket.destroy();
      resolve();
    };
    socket.on('end', end);
    socket.on('error', end);
    socket.on('close', end);
  });
  return {
    write: (text) => socket.write(text),
    received: () => received,
    until: (step, pattern) => {
      let check: () => void = () => undefined;
      const found = new Promise<void>((resolve) => {
        check = () => (pattern.test(received) ? resolve() : undefined);
        waiters.add(check);
        check();
      });
      return within(found, STEP_MS, step, () => received).finally(() => waiters.delete(check));
    },
    closed,
    isClosed: () => ended,
  };
}

/** Status and headers (lower-cased) of the last reply in `text`. */
function lastReply(text: string): { status: number; headers: Record<string, string> } {
  const head = text.slice(text.lastIndexOf('HTTP/1.1 ')).split('\r\n\r\n')[0];
  const [statusLine, ...lines] = head.split('\r\n');
  return {
    status: Number(statusLine.split(' ')[1]),
    headers: Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()])),
  };
}

/** Who listens on a TCP port (iproute2's ss), for a failure's message. */
function listeners(port: number): string {
  const ss = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  return ss.error ? `(ss: ${ss.error.message})` : ss.stdout || '(nobody)';
}

/**
 * Whether a new connection to `port` is refused by the server `serverPid`.
 * A probe that connects counts as accepted only when that server holds the
 * accepted end or still listens on the port (`ss`): with nobody listening,
 * Linux may connect the probe to itself (TCP simultaneous open, same local
 * port), or hand it to a socket torn down at once (seen in full runs: the
 * connect event with no local port left, no owner, nobody listening), and
 * another test file's server may bind the port once ours released it. A
 * probe reset while nobody listens was queued as the listener closed: it
 * was not served either.
 */
function refused(port: number, serverPid: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      const localPort = socket.localPort;
      const owner = localPort ? spawnSync('ss', ['-tnpH', `sport = :${port} and dport = :${localPort}`], { encoding: 'utf8' }).stdout ?? '' : '';
      const ours = `pid=${serverPid},`;
      socket.destroy();
      const accepted = localPort !== port && (owner.includes(ours) || listeners(port).includes(ours));
      resolve(accepted ? `accepted (${owner.trim() || listeners(port)})` : 'ECONNREFUSED');
    });
    // A probe that reached the listener's queue as it closed is reset, not served (seen in a full run: ECONNRESET,
    // nobody listening): a refusal too, unless our server still listens.
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNRESET' && !listeners(port).includes(`pid=${serverPid},`) ? 'ECONNREFUSED' : (error.code ?? 'error')),
    );
  });
}

describe('server lifecycle', () => {
  it(
    'on SIGTERM stops accepting, closes idle keep-alive connections at once, answers the request in flight with Connection: close, and exits when it is done',
    async () => {
      // A backstop far beyond the guards: exiting within them shows the server did not wait for it.
      const server = startServer({ DATABASE_URL: process.env.DATABASE_URL!, SHUTDOWN_TIMEOUT_MS: '600000' });
      const port = Number(new URL(await server.ready()).port);

      // A connection opened before the signal that has not sent its request yet. (Opened first: the server
      // accepts connections in order, so once the next one has been answered this one is accepted too.)
      const opened = await connect(port);
      // An idle keep-alive connection: one request answered, the connection left open.
      const idle = await connect(port);
      idle.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
      await idle.until('the health reply', /\{"status":"ok"\}/);
      expect(lastReply(idle.received()).headers.connection).toBe('keep-alive');

      // A request in flight: the server has read its head (it answered 100 Continue) and waits for its body.
      const body = JSON.stringify({ email: 'not-an-email', password: 'long-enough-password' });
      const busy = await connect(port);
      busy.write(`POST /api/v1/auth/signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`);
      await busy.until('100 Continue for the request in flight', /^HTTP\/1\.1 100 Continue\r\n\r\n/);

      server.child.kill('SIGTERM');
      await server.waitFor('the shutdown log line', (text) => text.includes('"msg":"shutting down"') || null);
      await within(idle.closed, STEP_MS, 'closing the idle keep-alive connection');
      const refusal = await within(refused(port, server.child.pid!), STEP_MS, 'refusing a new connection');
      // Should a connection be accepted after the shutdown began, say who listens on the port and what the server printed.
      if (refusal !== 'ECONNREFUSED') console.error(`${refusal} after SIGTERM; listening on ${port}:\n${listeners(port)}\nserver output:\n${server.output()}`);
      expect(refusal).toBe('ECONNREFUSED');
      // The request in flight is still waiting for its body, and the server for it.
      expect(busy.isClosed()).toBe(false);
      expect(server.child.exitCode).toBeNull();

      // The connection accepted before the signal has its request answered, not cut, and then ends.
      opened.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
      await opened.until('the reply on the connection accepted before the signal', /\{"status":"ok"\}/);
      expect(lastReply(opened.received())).toMatchObject({ status: 200, headers: { connection: 'close' } });
      await within(opened.closed, STEP_MS, 'closing that connection after its reply');
      expect(busy.isClosed()).toBe(false);

      busy.write(body);
      await busy.until('the reply to the request in flight', /\r\n\r\n\{.*\}$/s);
      expect(lastReply(busy.received())).toMatchObject({ status: 422, headers: { connection: 'close' } });
      await within(busy.closed, STEP_MS, 'closing the connection after its reply');
      expect(await within(server.exited, STEP_MS, 'exiting once the last request was answered', server.output)).toBe(0);
      expect(server.output()).toContain('"msg":"stopped"');
    },
    TEST_MS,
  );

  it(
    'serves from WEB_CONCURRENCY workers sharing one port, with quotas counted across them, and stops them all on SIGTERM',
    async () => {
      const server = startServer({ DATABASE_URL: process.env.DATABASE_URL!, WEB_CONCURRENCY: '2', RATE_LIMIT_PER_MINUTE: '1000' });
      const base = await server.ready();
      // The banner waits for every worker; each logs its own pid as it starts listening.
      const workers = await server.waitFor('two workers listening', (text) => {
        const pids = new Set([...text.matchAll(/"worker":(\d+)[^\n]*"msg":"worker listening"/g)].map((match) => Number(match[1])));
        return pids.size >= 2 ? [...pids] : null;
      });
      expect(workers).toHaveLength(2);
      expect(workers).not.toContain(server.child.pid);
      // Both workers count against one quota in PostgreSQL: remaining falls by one per request, whichever worker answers.
      const remaining: number[] = [];
      for (let index = 0; index < 6; index += 1) {
        const res = await within(fetch(`${base}/api/v1/org/nobody/ws`, { headers: { connection: 'close' } }), STEP_MS, `request ${index + 1}`, server.output);
        expect(res.status).toBe(401);
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      }
      expect(remaining).toEqual(remaining.map((_, index) => remaining[0] - index));
      server.child.kill('SIGTERM');
      expect(await within(server.exited, STEP_MS * 2, 'stopping the primary and its workers', server.output)).toBe(0);
      expect(server.output()).toContain('"msg":"stopped"');
      expect(workers.filter(isAlive)).toEqual([]);
    },
    TEST_MS,
  );

  it(
    'starts an embedded PostgreSQL when DATABASE_URL is unset, keeps its data, and leaves no postgres process behind',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-platform-start-'));
      fs.chmodSync(dataDir, 0o755);
      try {
        const env = { DATABASE_URL: '', DATA_DIR: dataDir, SEED_DEMO: 'true' };
        const first = startServer(env);
        const base = await first.ready();
        const health = await within(fetch(`${base}/api/v1/health/ready`), STEP_MS, 'the readiness check', first.output);
        expect(health.status).toBe(200);
        const token = /Bearer ([\w.-]+)/.exec(first.output())![1];
        const created = await within(
          fetch(`${base}/api/v1/org/demo/ws`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ key: 'kept-across-restarts', name: 'Kept' }),
          }),
          STEP_MS,
          'creating a workspace',
          first.output,
        );
        expect(created.status).toBe(201);
        first.child.kill('SIGINT');
        expect(await within(first.exited, STEP_MS * 2, 'stopping the server and its PostgreSQL', first.output)).toBe(0);
        expect(postgresProcessesFor(dataDir)).toEqual([]);

        // Data survives a restart.
        const second = startServer(env);
        const secondBase = await second.ready();
        const kept = await within(fetch(`${secondBase}/api/v1/org/demo/ws/kept-across-restarts`, { headers: { authorization: `Bearer ${token}` } }), STEP_MS, 'reading the kept workspace', second.output);
        expect(kept.status).toBe(200);
        second.child.kill('SIGTERM');
        expect(await within(second.exited, STEP_MS * 2, 'stopping the restarted server', second.output)).toBe(0);
        expect(postgresProcessesFor(dataDir)).toEqual([]);
      } finally {
        await stopRunning();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    TEST_MS,
  );
});

describe('failures to start and to stop', () => {
  it(
    'stops with its problems on a bad setting, one per line and no stack',
    async () => {
      const bad = startServer({ DATABASE_URL: process.env.DATABASE_URL!, DB_POOL_MAX: 'abc', JWT_TTL: '99999999999999d' });
      expect(await within(bad.exited, STARTUP_MS, 'exiting on a bad setting', bad.output)).toBe(1);
      expect(bad.output()).toContain('Invalid configuration:');
      expect(bad.output()).toMatch(/DB_POOL_MAX: /);
      expect(bad.output()).toMatch(/JWT_TTL: JWT_TTL must be at most 365d/);
      expect(bad.output()).not.toMatch(/^\s+at /m);
    },
    TEST_MS,
  );

  it(
    'exits 1 saying why when its port is taken, with one process and with workers',
    async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = String((blocker.address() as net.AddressInfo).port);
      try {
        for (const workers of ['1', '2']) {
          const server = startServer({ DATABASE_URL: process.env.DATABASE_URL!, PORT: port, WEB_CONCURRENCY: workers });
          expect(await within(server.exited, STARTUP_MS, `exiting with ${workers} worker(s) on a port in use`, server.output)).toBe(1);
          expect(server.output()).toContain(`failed to start: cannot listen on 127.0.0.1:${port} (PORT): the port is already in use`);
          if (workers === '2') expect(server.output()).toContain('a worker failed to start; stopping');
          expect(server.output()).not.toMatch(/^\s+at /m);
        }
      } finally {
        blocker.close();
      }
    },
    TEST_MS,
  );

  it(
    'exits 1 soon after SHUTDOWN_TIMEOUT_MS when a request waits on a database that does not answer',
    async () => {
      const isolated = await createIsolatedDatabase();
      const locker = new Client({ connectionString: isolated.url });
      await locker.connect();
      try {
        const server = startServer({ DATABASE_URL: isolated.url, SHUTDOWN_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '0' });
        const base = await server.ready();
        const signup = await within(
          fetch(`${base}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `stuck-${Date.now()}@example.com`, password: 'a long enough password' }) }),
          STEP_MS,
          'signing up',
          server.output,
        );
        const { access_token: token } = (await signup.json()) as { access_token: string };
        // Every read of the users table now waits for this lock, which is held until the test ends.
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
        const stuck = fetch(`${base}/api/v1/user`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
        const watcher = new Client({ connectionString: isolated.url });
        await watcher.connect();
        const waiting = async (): Promise<void> => {
          const { rows } = await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
          if (!rows[0].n) return new Promise((resolve) => setTimeout(resolve, 50)).then(waiting);
        };
        await within(waiting(), STEP_MS, 'the request waiting on the lock', server.output).finally(() => watcher.end());
        server.child.kill('SIGTERM');
        // The backstop cuts the connection at 1 s; the database's pool is let go of 5 s later at the latest.
        expect(await within(server.exited, STEP_MS, 'exiting while the database does not answer', server.output)).toBe(1);
        expect(server.output()).toContain('shutdown did not finish in time; exiting');
        await stuck;
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        await locker.end();
        await stopRunning();
        await isolated.drop();
      }
    },
    TEST_MS,
  );
});

import { Client } from 'pg';
import { createUser, type TestUser } from '../../factories/accounts';
import { saveSession, sessionsPath } from '../../factories/sessions';
import { rest, type HttpResult } from '../../helpers/http';
import { createIsolatedDatabase } from '../../helpers/isolated-database';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/**
 * PostgreSQL going away under a running statement answers 503
 * database_error with Retry-After, never a masked 500, whether the server
 * says so (pg_terminate_backend: SQLSTATE 57P01) or the connection just
 * breaks (node-postgres's "Connection terminated unexpectedly" and
 * ECONNRESET, which carry no SQLSTATE). The app reaches its own isolated
 * database through a TCP proxy, so cutting connections touches no other
 * test file. Each statement is held mid-flight by a lock a second
 * connection takes, and killed while it waits.
 */
const api = {} as TestApp;
let served: Awaited<ReturnType<typeof startTestApp>>;
let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let proxy: TcpProxy;
let locker: Client;
let user: TestUser;
let sessionId: string;

beforeAll(async () => {
  isolated = await createIsolatedDatabase();
  proxy = await startTcpProxy(isolated.url);
  served = await startTestApp(proxy.url, { poolMax: 3 });
  Object.assign(api, served.testApp);
  locker = new Client({ connectionString: isolated.url });
  await locker.connect();
  user = await createUser();
  sessionId = (await saveSession(api, user)).id;
});

afterAll(async () => {
  await locker.end().catch(() => undefined);
  await served.close();
  await proxy.close();
  await isolated.drop();
});

/** The backend of the app's statement once it waits for the locker's lock (a deadlock guard, not a timing). */
async function waitingBackend(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const { rows } = await locker.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
    );
    if (rows.length === 1) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const { rows } = await locker.query('SELECT pid, state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE datname = current_database()');
  throw new Error(`the request never reached its statement ${JSON.stringify(rows)}`);
}

type Kill = 'PostgreSQL terminates the backend' | 'the connection is closed' | 'the connection is reset';

/** Runs `request` while `lock` holds its statement, kills the statement's connection mid-statement, and returns the reply. */
async function killedMidStatement(lock: string, kill: Kill, request: () => Promise<HttpResult>): Promise<HttpResult> {
  // Sequelize says on the console that it could not roll the transaction back on the dead connection.
  const consoleWarn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  await locker.query('BEGIN');
  try {
    await locker.query(lock);
    const pending = request();
    const pid = await waitingBackend();
    if (kill === 'PostgreSQL terminates the backend') await locker.query('SELECT pg_terminate_backend($1)', [pid]);
    else proxy.cut(kill === 'the connection is reset' ? 'reset' : 'end');
    return await pending;
  } finally {
    await locker.query('ROLLBACK');
    await noneWaiting();
    consoleWarn.mockRestore();
  }
}

/** A backend cut off behind the proxy runs its statement once the lock is gone, then exits: wait for that, so the next test finds only its own. */
async function noneWaiting(): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const { rows } = await locker.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if (rows.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function expectUnavailable(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { code: 503, detail: expect.any(String), errors: null, type: 'database_error' } });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.text).not.toMatch(/terminat|ECONNRESET|127\.0\.0\.1/);
}

const KILLS: Kill[] = ['PostgreSQL terminates the backend', 'the connection is closed', 'the connection is reset'];

describe('a connection killed under a statement on the direct node-postgres path (plainQuery, a named statement: the credential)', () => {
  it.each(KILLS)('answers 503 database_error with Retry-After when %s, then serves again', async (kill) => {
    const read = () => rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expectUnavailable(await killedMidStatement('LOCK TABLE users IN ACCESS EXCLUSIVE MODE', kill, read));
    expect((await read()).status).toBe(200);
  });
});

describe('a connection killed under a statement on the Sequelize path (a transcript append in its transaction)', () => {
  it.each(KILLS)('answers 503 database_error with Retry-After when %s, then serves again', async (kill) => {
    const append = () => rest(api, 'POST', `${sessionsPath(user.orgKey)}/${sessionId}/transcript`, { token: user.token, body: { messages: [{ role: 'user', content: 'hi' }] } });
    expectUnavailable(await killedMidStatement(`SELECT 1 FROM sessions WHERE id = '${sessionId}' FOR UPDATE`, kill, append));
    expect((await append()).status).toBe(201);
  });
});

import crypto from 'node:crypto';
import { overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { signAccessToken } from '../../../src/modules/accounts/jwt';
import { rest } from '../../helpers/http';
import { createIsolatedDatabase } from '../../helpers/isolated-database';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/**
 * A database that stops answering (frozen, or behind a network that drops
 * packets) rather than refusing: a request that needs a new connection
 * answers 503 once DB_CONNECT_TIMEOUT_MS has passed, and readiness answers
 * 503 within its own deadline even when its statement waits on an open
 * connection, instead of both waiting for as long as the database does. The
 * app reaches its own isolated database through a TCP proxy that stops
 * passing anything on, and starts again. (A statement already sent on an
 * open connection still waits for the database: README, DB_CONNECT_TIMEOUT_MS.)
 */
overrideConfig({ DB_CONNECT_TIMEOUT_MS: 1000, DB_POOL_ACQUIRE_TIMEOUT_MS: 5000 });
const api = {} as TestApp;
let served: Awaited<ReturnType<typeof startTestApp>>;
let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let proxy: TcpProxy;
// A user the database does not have: once it answers, 401.
const token = signAccessToken({ id: crypto.randomUUID(), token_version: 0 });

beforeAll(async () => {
  isolated = await createIsolatedDatabase();
  proxy = await startTcpProxy(isolated.url);
  served = await startTestApp(proxy.url, { poolMax: 2 });
  Object.assign(api, served.testApp);
});

afterAll(async () => {
  proxy.resume();
  await served.close();
  await proxy.close();
  await isolated.drop();
});

describe('a database that does not answer', () => {
  it('answers a request needing a new connection 503 after the connect timeout, and serves again once it answers', async () => {
    // No connection is open yet: each one the database accepts and never answers.
    proxy.stall();
    const request = await rest(api, 'GET', '/user', { token });
    expect(request.status).toBe(503);
    // The connect timeout's answer, not the pool's (DB_POOL_ACQUIRE_TIMEOUT_MS says "No database connection became free in time").
    expect(request.body).toEqual({ code: 503, detail: 'The database is unavailable; retry later', errors: null, type: 'database_error' });
    expect(Number(request.headers.get('retry-after'))).toBeGreaterThan(0);
    const ready = await rest(api, 'GET', '/health/ready');
    expect([ready.status, ready.body]).toEqual([503, { status: 'unavailable', database: 'unreachable' }]);
    proxy.resume();
    expect((await rest(api, 'GET', '/user', { token })).status).toBe(401);
  });

  it('answers readiness 503 within its deadline when its statement waits on an open connection', async () => {
    expect((await rest(api, 'GET', '/health/ready')).status).toBe(200);
    proxy.stall();
    // Probes at once share one statement: each answers by its deadline.
    const probes = await Promise.all([1, 2, 3].map(() => rest(api, 'GET', '/health/ready')));
    expect(probes.map((probe) => [probe.status, probe.body])).toEqual(Array(3).fill([503, { status: 'unavailable', database: 'unreachable' }]));
    proxy.resume();
    expect((await rest(api, 'GET', '/health/ready')).status).toBe(200);
  });

  it('answers 503 once DB_POOL_ACQUIRE_TIMEOUT_MS has passed when every connection of the pool stays taken', async () => {
    // The pool's two connections, taken and held here as two long requests would hold them.
    const manager = database().connectionManager;
    const held = await Promise.all([1, 2].map(() => manager.getConnection({ type: 'read' })));
    try {
      const request = await rest(api, 'GET', '/user', { token });
      expect([request.status, request.body]).toEqual([503, { code: 503, detail: 'No database connection became free in time; retry later', errors: null, type: 'database_error' }]);
      expect(request.headers.get('retry-after')).toBe('5');
    } finally {
      for (const connection of held) manager.releaseConnection(connection);
    }
    expect((await rest(api, 'GET', '/user', { token })).status).toBe(401);
  });
});

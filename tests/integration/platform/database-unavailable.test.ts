import crypto from 'node:crypto';
import { freePort } from '../../../src/db/free-port';
import { signAccessToken } from '../../../src/modules/accounts/jwt';
import { gql, rest } from '../../helpers/http';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/**
 * A database that cannot be reached: 503 database_error with Retry-After
 * (not a masked 500), on both transports, while liveness stays 200.
 */
const api = {} as TestApp;
let served: Awaited<ReturnType<typeof startTestApp>>;
const token = signAccessToken({ id: crypto.randomUUID(), token_version: 0 });

beforeAll(async () => {
  const port = await freePort();
  served = await startTestApp(`postgres://postgres:postgres@127.0.0.1:${port}/nowhere`, { poolMax: 2 });
  Object.assign(api, served.testApp);
});

afterAll(async () => {
  await served.close();
});

describe('an unreachable database', () => {
  it('answers REST requests with 503 database_error and Retry-After', async () => {
    const res = await rest(api, 'GET', '/org/anything/ws', { token });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ code: 503, detail: expect.any(String), errors: null, type: 'database_error' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('answers GraphQL requests with 503 database_error and Retry-After', async () => {
    const res = await gql(api, '{ user { id } }', {}, token);
    expect(res.status).toBe(503);
    // Refused before the document ran (the credential could not be checked), in GraphQL's own reply.
    expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'DATABASE_ERROR', status: 503, type: 'database_error' } }] });
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('answers public operations that need the database with 503 too, and stays live', async () => {
    const login = await rest(api, 'POST', '/auth/login', { body: { email: 'a@example.test', password: 'whatever-password' } });
    expect(login.status).toBe(503);
    expect((await rest(api, 'GET', '/health/ready')).status).toBe(503);
    expect((await rest(api, 'GET', '/health')).status).toBe(200);
  });
});

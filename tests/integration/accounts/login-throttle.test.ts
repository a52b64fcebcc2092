import { loadConfig, overrideConfig } from '../../../src/config/config';
import { createUser, randomKey } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useIsolatedTestApp } from '../../helpers/isolated-database';

// Counters live in PostgreSQL; an isolated database keeps them apart from other files.
const api = useIsolatedTestApp();
const LIMIT = 3;

beforeAll(() => {
  // The client address comes from X-Forwarded-For only behind a trusted proxy: each attempt below comes from another one.
  overrideConfig({ TRUST_PROXY: true, AUTH_RATE_LIMIT_PER_MINUTE: 0, RATE_LIMIT_PER_MINUTE: 0, LOGIN_ACCOUNT_RATE_LIMIT: LIMIT, LOGIN_ACCOUNT_RATE_WINDOW_SECONDS: 900 });
});

let address = 0;
function login(body: Record<string, unknown>) {
  address += 1;
  return rest(api, 'POST', '/auth/login', { body, headers: { 'x-forwarded-for': `198.51.100.${address % 250}` } });
}

describe('login throttle per account', () => {
  it('counts attempts for an identifier of any length or character as for any other (a 300-character name is 401, not 500)', async () => {
    const long = 'a'.repeat(300);
    for (let index = 0; index < LIMIT; index += 1) expect((await login({ username: long, password: 'wrong' })).status).toBe(401);
    const refused = await login({ username: long, password: 'wrong' });
    expect(refused.status).toBe(429);
    expect(refused.body.type).toBe('usage_limit_exceeded_error');
    // Another identifier of the same length has its own bucket (its digest, not a cut prefix).
    expect((await login({ username: `${'a'.repeat(299)}b`, password: 'wrong' })).status).toBe(401);
  });

  it('defaults to 10 failed attempts per 15 minutes', () => {
    const defaults = loadConfig({});
    expect([defaults.LOGIN_ACCOUNT_RATE_LIMIT, defaults.LOGIN_ACCOUNT_RATE_WINDOW_SECONDS]).toEqual([10, 900]);
  });

  it('answers 429 with Retry-After once an account has had its failed attempts, from whatever address, even to the right password', async () => {
    const user = await createUser();
    for (let index = 0; index < LIMIT; index += 1) {
      expect((await login({ email: user.email, password: `wrong-password-${index}` })).status).toBe(401);
    }
    const refused = await login({ email: user.email, password: user.password });
    expect(refused.status).toBe(429);
    expect(refused.body.type).toBe('usage_limit_exceeded_error');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Another account is not affected.
    const other = await createUser();
    expect((await login({ email: other.email, password: other.password })).status).toBe(200);
  });

  it('counts the e-mail address and the username of an account as one', async () => {
    const user = await createUser();
    await login({ email: user.email, password: 'wrong-password-1' });
    await login({ username: user.username, password: 'wrong-password-2' });
    await login({ email: user.email.toUpperCase(), password: 'wrong-password-3' });
    expect((await login({ username: user.username, password: user.password })).status).toBe(429);
  });

  it('does not count successful logins', async () => {
    const user = await createUser();
    const statuses: number[] = [];
    for (let index = 0; index < LIMIT + 2; index += 1) statuses.push((await login({ email: user.email, password: user.password })).status);
    expect(statuses).toEqual(Array(LIMIT + 2).fill(200));
    expect((await login({ email: user.email, password: 'wrong-password' })).status).toBe(401);
  });

  it('throttles an unknown account the same way, so a 429 tells nothing about existence', async () => {
    const email = `${randomKey('nobody')}@example.test`;
    for (let index = 0; index < LIMIT; index += 1) expect((await login({ email, password: 'wrong-password' })).status).toBe(401);
    expect((await login({ email, password: 'wrong-password' })).status).toBe(429);
  });

  it('lets no more than the limit through when the attempts come at once', async () => {
    const user = await createUser();
    const replies = await Promise.all(Array.from({ length: 8 }, (_, index) => login({ email: user.email, password: `wrong-${index}-password` })));
    expect(replies.map((reply) => reply.status).sort()).toEqual([...Array(LIMIT).fill(401), ...Array(8 - LIMIT).fill(429)]);
  });

  it('throttles GraphQL logins on the same count', async () => {
    const user = await createUser();
    for (let index = 0; index < LIMIT; index += 1) await login({ email: user.email, password: 'wrong-password' });
    const res = await rest(api, 'POST', '/graphql', {
      body: { query: 'mutation($input: LoginInput!) { login(input: $input) { access_token } }', variables: { input: { email: user.email, password: user.password } } },
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({ type: 'usage_limit_exceeded_error', status: 429 });
  });
});

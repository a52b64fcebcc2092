import { overrideConfig } from '../../../src/config/config';
import { createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useIsolatedTestApp } from '../../helpers/isolated-database';

// Counters live in PostgreSQL; an isolated database keeps them apart from other files.
const api = useIsolatedTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a credential spends its quota, and counts credentials apart', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 3, AUTH_RATE_LIMIT_PER_MINUTE: 0 });
    const other = await createUser();
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expect(limited.body).toMatchObject({ code: 429, type: 'usage_limit_exceeded_error' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws`, { token: other.token })).status).toBe(200);
  });

  it('limits the account endpoints per IP more strictly', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 0, AUTH_RATE_LIMIT_PER_MINUTE: 2 });
    const attempt = () => rest(api, 'POST', '/auth/signup', { body: { email: 'bad', password: 'x' } });
    expect((await attempt()).status).toBe(422);
    expect((await attempt()).status).toBe(422);
    const third = await attempt();
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBeTruthy();
    expect((await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token })).status).toBe(200);
  });

  it('answers 426 upgrade_required_error to clients older than MIN_CLIENT_VERSION', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 0, AUTH_RATE_LIMIT_PER_MINUTE: 0, MIN_CLIENT_VERSION: '2.0.0' });
    const old = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, headers: { 'x-client-version': '1.9.3' } });
    expect(old.status).toBe(426);
    expect(old.body.type).toBe('upgrade_required_error');
    const current = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, headers: { 'x-client-version': '2.1.0' } });
    expect(current.status).toBe(200);
    const none = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expect(none.status).toBe(200);
    overrideConfig({ MIN_CLIENT_VERSION: undefined });
  });
});

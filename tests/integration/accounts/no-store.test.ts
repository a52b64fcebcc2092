import { createUser, randomKey, type TestUser } from '../../factories/accounts';
import { requestResetToken } from '../../factories/mail';
import { gql, rest, type HttpResult } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

const cacheControl = (res: HttpResult) => res.headers.get('cache-control');

describe('Cache-Control: no-store on replies that carry a token or a new key', () => {
  it('marks the REST replies of signup, login, reset and API key creation', async () => {
    const signup = await rest(api, 'POST', '/auth/signup', { body: { email: `${randomKey('ns')}@example.test`, password: 'a-long-enough-password' } });
    expect(signup.status).toBe(201);
    const login = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect(login.status).toBe(200);
    const key = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'cache' } });
    expect(key.status).toBe(201);
    const other = await createUser();
    const token = await requestResetToken(api, other.email);
    const reset = await rest(api, 'POST', '/auth/reset-password', { body: { email: other.email, password: 'a-brand-new-password', token } });
    expect(reset.status).toBe(200);
    expect([signup, login, key, reset].map(cacheControl)).toEqual(['no-store', 'no-store', 'no-store', 'no-store']);
  });

  it('marks their refusals too, and every reply made for a credential, but not anonymous replies without secrets', async () => {
    const refused = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    expect(refused.status).toBe(401);
    expect(cacheControl(refused)).toBe('no-store');
    const me = await rest(api, 'GET', '/user', { token: user.token });
    const keys = await rest(api, 'GET', '/user/api-keys', { token: user.token });
    const forgot = await rest(api, 'POST', '/auth/forgot-password', { body: { email: user.email } });
    expect([me, keys, forgot].map(cacheControl)).toEqual(['no-store', 'no-store', null]);
    // A device code's status: anonymous, but read through a URL holding the code, and polled while it changes.
    const device = await rest(api, 'POST', '/auth/device/code');
    const status = await rest(api, 'GET', `/auth/device/code/${device.body.device_code}`);
    expect([status.status, cacheControl(status)]).toEqual([200, 'no-store']);
  });

  it('marks /metrics, made for the holder of its token', async () => {
    const metrics = await rest(api, 'GET', '/metrics');
    expect([metrics.status, cacheControl(metrics)]).toEqual([200, 'no-store']);
  });

  it('marks GraphQL replies that select a token or a key (fragments included) or are made for a credential, once', async () => {
    const login = await runOperation(api, 'Login', { input: { email: user.email, password: user.password } });
    expect(login.body.errors).toBeUndefined();
    expect(cacheControl(login)).toBe('no-store');
    const created = await runOperation(api, 'CreateApiKey', { input: { name: 'gql' } }, user.token);
    expect(created.body.errors).toBeUndefined();
    expect(cacheControl(created)).toBe('no-store');
    const current = await runOperation(api, 'CurrentUser', {}, user.token);
    expect(cacheControl(current)).toBe('no-store');
    // The same mutation without the secret field selected carries nothing to protect.
    const withoutToken = await gql(api, 'mutation($input: LoginInput!) { login(input: $input) { orgs { key } } }', {
      input: { email: user.email, password: user.password },
    });
    expect(withoutToken.body.errors).toBeUndefined();
    expect(cacheControl(withoutToken)).toBeNull();
  });
});

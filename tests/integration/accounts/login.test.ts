import { UserModel } from '../../../models';
import { config, overrideConfig } from '../../../src/config/config';
import { addMember, createUser, randomKey, type TestUser } from '../../factories/accounts';
import { requestResetToken } from '../../factories/mail';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser({ full_name: 'Lou Login' });
});

describe('POST /auth/login', () => {
  it('logs in by e-mail with 200 and returns a working token, the personal org and every org', async () => {
    const other = await createUser();
    await addMember(other.orgKey, user, 'reader');
    const res = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      default_org: { key: user.orgKey, name: 'Lou Login' },
      orgs: [{ key: user.orgKey, name: 'Lou Login' }, { key: other.orgKey, name: other.username }],
    });
    const me = await rest(api, 'GET', '/user', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it('logs in by username with 200', async () => {
    const res = await rest(api, 'POST', '/auth/login', { body: { username: user.username, password: user.password } });
    expect(res.status).toBe(200);
    expect(res.body.default_org.key).toBe(user.orgKey);
  });

  it('accepts the e-mail in any letter case', async () => {
    const res = await rest(api, 'POST', '/auth/login', { body: { email: user.email.toUpperCase(), password: user.password } });
    expect(res.status).toBe(200);
  });

  it('rejects a wrong password with 401 authentication_error', async () => {
    const res = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
  });

  it('answers an unknown user with exactly the same 401 as a wrong password', async () => {
    const wrongPassword = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    const unknown = await rest(api, 'POST', '/auth/login', { body: { email: `${randomKey('nobody')}@example.test`, password: 'wrong-password' } });
    const unknownName = await rest(api, 'POST', '/auth/login', { body: { username: randomKey('nobody'), password: 'wrong-password' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrongPassword.body);
    expect(unknownName.body).toEqual(wrongPassword.body);
  });

  it('rejects a suspended user with 403 user_suspended', async () => {
    const suspended = await createUser();
    await UserModel.update({ is_suspended: true }, { where: { id: suspended.id } });
    const res = await rest(api, 'POST', '/auth/login', { body: { email: suspended.email, password: suspended.password } });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('user_suspended');
  });

  it('does not reveal a suspension to a caller with a wrong password', async () => {
    const suspended = await createUser();
    await UserModel.update({ is_suspended: true }, { where: { id: suspended.id } });
    const res = await rest(api, 'POST', '/auth/login', { body: { email: suspended.email, password: 'wrong-password' } });
    expect(res.status).toBe(401);
  });

  it('refuses an unverified e-mail with 403 user_verification_error when verification is required, until a reset proves the address', async () => {
    const previous = config();
    overrideConfig({ REQUIRE_EMAIL_VERIFICATION: true });
    try {
      const email = `${randomKey('verify')}@example.test`;
      const signup = await rest(api, 'POST', '/auth/signup', { body: { email, password: 'first-password' } });
      expect(signup.status).toBe(201);
      expect(signup.body).toMatchObject({ access_token: null, requires_verification: true });
      const refused = await rest(api, 'POST', '/auth/login', { body: { email, password: 'first-password' } });
      expect(refused.status).toBe(403);
      expect(refused.body.type).toBe('user_verification_error');
      const token = await requestResetToken(api, email);
      const reset = await rest(api, 'POST', '/auth/reset-password', { body: { email, password: 'second-password', token } });
      expect(reset.status).toBe(200);
      const login = await rest(api, 'POST', '/auth/login', { body: { email, password: 'second-password' } });
      expect(login.status).toBe(200);
    } finally {
      overrideConfig(previous);
    }
  });

  it('rejects a body without email and username with 422 missing at body.email', async () => {
    const res = await rest(api, 'POST', '/auth/login', { body: { password: user.password } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['body', 'email'], msg: 'Field required', type: 'missing' }]);
  });

  it('reports a missing password and a missing identifier at once', async () => {
    const res = await rest(api, 'POST', '/auth/login', { body: {} });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: string[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(expect.arrayContaining([['body.email', 'missing'], ['body.password', 'missing']]));
    expect(items).toHaveLength(2);
  });

  it('rejects a password of the wrong type with 422 string_type', async () => {
    const res = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 12345678 } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'password'], type: 'string_type' })]);
  });

  it('needs no credentials and ignores a bad one', async () => {
    const res = await rest(api, 'POST', '/auth/login', {
      body: { email: user.email, password: user.password },
      headers: { authorization: 'Bearer not-a-valid-token' },
    });
    expect(res.status).toBe(200);
  });

  it('logs in through the GraphQL mutation', async () => {
    const res = await runOperation(api, 'Login', { input: { username: user.username, password: user.password } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.login.default_org.key).toBe(user.orgKey);
    const me = await runOperation(api, 'CurrentUser', {}, res.body.data.login.access_token);
    expect(me.body.data.user).toMatchObject({ id: user.id, username: user.username, full_name: 'Lou Login' });
  });

  it('reports wrong credentials in GraphQL with the authentication_error type', async () => {
    const res = await gql(api, 'mutation($input: LoginInput!) { login(input: $input) { access_token } }', {
      input: { email: user.email, password: 'wrong-password' },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({ type: 'authentication_error', status: 401 });
  });
});

import { ApiKeyModel, PasswordResetTokenModel } from '../../../models';
import { config, overrideConfig } from '../../../src/config/config';
import { sha256 } from '../../../src/core/secrets';
import { WITHHELD_BODY } from '../../../src/modules/mail/mail.service';
import { createUser, randomKey } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { expireResetTokens, outboxOf, requestResetToken } from '../../factories/mail';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
const NEW_PASSWORD = 'a-brand-new-password';

describe('POST /auth/forgot-password', () => {
  it('answers 202 with the same body whether or not the address exists', async () => {
    const user = await createUser();
    const known = await rest(api, 'POST', '/auth/forgot-password', { body: { email: user.email } });
    const unknown = await rest(api, 'POST', '/auth/forgot-password', { body: { email: `${randomKey('nobody')}@example.test` } });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.body).toEqual({ status: 'accepted', detail: 'If the address exists, a reset link was sent' });
    expect(unknown.body).toEqual(known.body);
  });

  it('writes a reset mail with a link to the outbox and stores only the hash of the token, valid one hour', async () => {
    const user = await createUser();
    const token = await requestResetToken(api, user.email);
    const [mail] = await outboxOf(user.email);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.kind).toBe('password_reset');
    expect(mail.body_text).toContain(`reset-password?token=${token}`);
    expect(mail.body_text).not.toContain(user.password);
    const rows = await PasswordResetTokenModel.findAll({ where: { user_id: user.id, purpose: 'password_reset' } });
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(sha256(token));
    expect(rows[0].token_hash).not.toContain(token);
    const ttl = rows[0].expires_at.getTime() - rows[0].created_at.getTime();
    expect(ttl).toBeGreaterThan(59 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000 + 1000);
  });

  it('keeps only the metadata of the reset mail in production without SMTP_URL, never the token', async () => {
    const user = await createUser();
    const previous = config();
    overrideConfig({ NODE_ENV: 'production', SMTP_URL: undefined });
    try {
      expect((await rest(api, 'POST', '/auth/forgot-password', { body: { email: user.email } })).status).toBe(202);
      const [mail] = await outboxOf(user.email);
      expect(mail).toMatchObject({ to_address: user.email, subject: 'Reset your password', kind: 'password_reset', body_text: WITHHELD_BODY });
      expect(mail.body_text).not.toMatch(/token/i);
    } finally {
      overrideConfig(previous);
    }
  });

  it('writes no mail for an unknown address', async () => {
    const email = `${randomKey('nobody')}@example.test`;
    await rest(api, 'POST', '/auth/forgot-password', { body: { email } });
    expect(await outboxOf(email)).toHaveLength(0);
  });

  it('rejects a malformed e-mail with 422 at body.email', async () => {
    const res = await rest(api, 'POST', '/auth/forgot-password', { body: { email: 'nope' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'email'] })]);
  });
});

describe('POST /auth/reset-password', () => {
  it('sets the new password, replies with a fresh token and the organizations, and the old password stops working', async () => {
    const user = await createUser();
    const token = await requestResetToken(api, user.email);
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      default_org: { key: user.orgKey, name: user.username },
      orgs: [{ key: user.orgKey, name: user.username }],
    });
    const me = await rest(api, 'GET', '/user', { token: res.body.access_token });
    expect(me.status).toBe(200);

    const oldLogin = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect(oldLogin.status).toBe(401);
    const newLogin = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: NEW_PASSWORD } });
    expect(newLogin.status).toBe(200);
  });

  it('makes every older access token fail with 401 token_error', async () => {
    const user = await createUser();
    expect((await rest(api, 'GET', '/user', { token: user.token })).status).toBe(200);
    const token = await requestResetToken(api, user.email);
    await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } });
    const res = await rest(api, 'GET', '/user', { token: user.token });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });

  it('rejects a spent token with 401 token_error', async () => {
    const user = await createUser();
    const token = await requestResetToken(api, user.email);
    const first = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } });
    expect(first.status).toBe(200);
    const again = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: 'yet-another-password', token } });
    expect(again.status).toBe(401);
    expect(again.body.type).toBe('token_error');
  });

  it('spends the other open reset tokens of the user too', async () => {
    const user = await createUser();
    const older = await requestResetToken(api, user.email);
    const newer = await requestResetToken(api, user.email);
    expect(older).not.toBe(newer);
    expect((await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token: newer } })).status).toBe(200);
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token: older } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });

  it('rejects an unknown token with 401 token_error', async () => {
    const user = await createUser();
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token: 'made-up-token' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });

  it("rejects a token used with another account's e-mail with 401 token_error and leaves it usable", async () => {
    const [user, other] = await Promise.all([createUser(), createUser()]);
    const token = await requestResetToken(api, user.email);
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: other.email, password: NEW_PASSWORD, token } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
    const own = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } });
    expect(own.status).toBe(200);
  });

  it('rejects an expired token with 401 expired_signature_error', async () => {
    const user = await createUser();
    const token = await requestResetToken(api, user.email);
    await expireResetTokens(user.id);
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('expired_signature_error');
    const login = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect(login.status).toBe(200);
  });

  it('rejects a new password under 8 characters with 422 string_too_short at body.password', async () => {
    const user = await createUser();
    const token = await requestResetToken(api, user.email);
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: 'short', token } });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'password'], type: 'string_too_short' })]);
    // The token was not spent by the invalid request.
    const ok = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } });
    expect(ok.status).toBe(200);
  });

  it.each([
    ['a common password', 'password'],
    ['a common password in capitals', 'PASSWORD1'],
    ['all whitespace', '        '],
  ])('rejects %s as the new password with 422 value_error at body.password and leaves the token usable', async (_label, password) => {
    const user = await createUser();
    const token = await requestResetToken(api, user.email);
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password, token } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'password'], type: 'value_error' })]);
    expect((await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } })).status).toBe(200);
  });

  it('revokes every API key of the account, so whoever pre-registered the address keeps none after the owner recovers it', async () => {
    // Someone signs up with the victim's address and makes keys; the victim "recovers" the account by a reset.
    const squatter = await createUser();
    const keys = await Promise.all([createApiKey(api, squatter), createApiKey(api, squatter, { allow_self_revoke: true })]);
    for (const { key } of keys) expect((await rest(api, 'GET', '/user', { headers: { 'x-api-key': key } })).status).toBe(200);
    const token = await requestResetToken(api, squatter.email);
    const reset = await rest(api, 'POST', '/auth/reset-password', { body: { email: squatter.email, password: NEW_PASSWORD, token } });
    expect(reset.status).toBe(200);
    for (const { key } of keys) {
      const res = await rest(api, 'GET', '/user', { headers: { 'x-api-key': key } });
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('token_error');
    }
    const rows = await ApiKeyModel.findAll({ where: { user_id: squatter.id } });
    expect(rows.map((row) => row.revoked_at)).toEqual([expect.any(Date), expect.any(Date)]);
    // A key made after the reset works.
    const after = await rest(api, 'POST', '/user/api-keys', { token: reset.body.access_token, body: { name: 'after' } });
    expect(after.status).toBe(201);
    expect((await rest(api, 'GET', '/user', { headers: { 'x-api-key': after.body.key } })).status).toBe(200);
  });

  it('leaves the API keys of other users alone', async () => {
    const [user, other] = await Promise.all([createUser(), createUser()]);
    const otherKey = await createApiKey(api, other);
    const token = await requestResetToken(api, user.email);
    expect((await rest(api, 'POST', '/auth/reset-password', { body: { email: user.email, password: NEW_PASSWORD, token } })).status).toBe(200);
    expect((await rest(api, 'GET', '/user', { headers: { 'x-api-key': otherKey.key } })).status).toBe(200);
  });

  it('reports every missing field and a bad e-mail at once', async () => {
    const res = await rest(api, 'POST', '/auth/reset-password', { body: { email: 'nope' } });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: string[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['body.password', 'missing'],
        ['body.token', 'missing'],
        ['body.email', 'value_error'],
      ]),
    );
  });

  it('resets the password through the GraphQL mutations', async () => {
    const user = await createUser();
    const forgot = await gql(api, 'mutation($input: ForgotPasswordInput!) { forgot_password(input: $input) { status detail } }', {
      input: { email: user.email },
    });
    expect(forgot.body.data.forgot_password.status).toBe('accepted');
    const [mail] = await outboxOf(user.email);
    const token = /Reset token: (\S+)/.exec(mail.body_text)![1];
    const res = await gql(
      api,
      'mutation($input: ResetPasswordInput!) { reset_password(input: $input) { access_token default_org { key } orgs { key name } } }',
      { input: { email: user.email, password: NEW_PASSWORD, token } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.reset_password.default_org.key).toBe(user.orgKey);
    const reused = await gql(api, 'mutation($input: ResetPasswordInput!) { reset_password(input: $input) { access_token } }', {
      input: { email: user.email, password: NEW_PASSWORD, token },
    });
    expect(reused.body.errors?.[0].extensions).toMatchObject({ type: 'token_error', status: 401 });
  });
});

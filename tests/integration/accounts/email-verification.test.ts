import { PasswordResetTokenModel, UserModel } from '../../../models';
import { config, overrideConfig } from '../../../src/config/config';
import { sha256 } from '../../../src/core/secrets';
import { createUser, randomKey } from '../../factories/accounts';
import { expireResetTokens, outboxOf, requestResetToken, verificationToken } from '../../factories/mail';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
const PASSWORD = 'a-long-enough-password';

async function signUp(): Promise<{ id: string; email: string; token: string }> {
  const email = `${randomKey('verify')}@example.test`;
  const res = await rest(api, 'POST', '/auth/signup', { body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return { id: res.body.id, email, token: await verificationToken(email) };
}

async function verifiedAt(id: string): Promise<Date | null> {
  return (await UserModel.findByPk(id))!.email_verified_at;
}

describe('signup and e-mail verification', () => {
  it('leaves email_verified_at unset at signup and mails a single-use verification link, storing only its hash', async () => {
    const { id, email, token } = await signUp();
    expect(await verifiedAt(id)).toBeNull();
    const [mail] = (await outboxOf(email)).filter((row) => row.kind === 'email_verification');
    expect(mail.subject).toBe('Verify your e-mail address');
    expect(mail.body_text).toContain(`/verify-email?token=${token}`);
    const rows = await PasswordResetTokenModel.findAll({ where: { user_id: id } });
    expect(rows.map((row) => [row.purpose, row.token_hash])).toEqual([['email_verification', sha256(token)]]);
    const ttl = rows[0].expires_at.getTime() - rows[0].created_at.getTime();
    expect(ttl).toBeGreaterThan(23 * 60 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(24 * 60 * 60 * 1000 + 1000);
  });

  it('verifies the address with the mailed token (200) and sets email_verified_at', async () => {
    const { id, email, token } = await signUp();
    const res = await rest(api, 'POST', '/auth/verify-email', { body: { token } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'verified', email_address: email, email_verified_at: expect.any(String) });
    expect((await verifiedAt(id))?.toISOString()).toBe(res.body.email_verified_at);
  });

  it('rejects a spent token with 401 token_error and keeps the first verification time', async () => {
    const { id, token } = await signUp();
    expect((await rest(api, 'POST', '/auth/verify-email', { body: { token } })).status).toBe(200);
    const first = await verifiedAt(id);
    const again = await rest(api, 'POST', '/auth/verify-email', { body: { token } });
    expect(again.status).toBe(401);
    expect(again.body.type).toBe('token_error');
    expect(await verifiedAt(id)).toEqual(first);
  });

  it('rejects an unknown token with 401 token_error', async () => {
    const res = await rest(api, 'POST', '/auth/verify-email', { body: { token: 'made-up-token' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });

  it('rejects an expired token with 401 expired_signature_error and leaves the address unverified', async () => {
    const { id, token } = await signUp();
    await expireResetTokens(id);
    const res = await rest(api, 'POST', '/auth/verify-email', { body: { token } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('expired_signature_error');
    expect(await verifiedAt(id)).toBeNull();
  });

  it('rejects a missing token with 422 missing at body.token', async () => {
    const res = await rest(api, 'POST', '/auth/verify-email', { body: {} });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'token'], type: 'missing' })]);
  });

  it('never takes a verification token for a password reset, nor a reset token for a verification', async () => {
    const { id, email, token } = await signUp();
    const reset = await rest(api, 'POST', '/auth/reset-password', { body: { email, password: 'an-attacker-password', token } });
    expect(reset.status).toBe(401);
    expect(reset.body.type).toBe('token_error');
    const resetToken = await requestResetToken(api, email);
    const verify = await rest(api, 'POST', '/auth/verify-email', { body: { token: resetToken } });
    expect(verify.status).toBe(401);
    expect(await verifiedAt(id)).toBeNull();
    // Both stay usable for what they are for.
    expect((await rest(api, 'POST', '/auth/verify-email', { body: { token } })).status).toBe(200);
    expect((await rest(api, 'POST', '/auth/reset-password', { body: { email, password: 'a-brand-new-password', token: resetToken } })).status).toBe(200);
  });

  it('stamps the address as verified on a password reset (the reset mail proves it too)', async () => {
    const { id, email } = await signUp();
    const token = await requestResetToken(api, email);
    expect((await rest(api, 'POST', '/auth/reset-password', { body: { email, password: 'a-brand-new-password', token } })).status).toBe(200);
    expect(await verifiedAt(id)).toBeInstanceOf(Date);
  });

  it('verifies through the GraphQL mutation', async () => {
    const { email, token } = await signUp();
    const res = await runOperation(api, 'VerifyEmail', { input: { token } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.verify_email).toMatchObject({ status: 'verified', email_address: email });
    const reused = await runOperation(api, 'VerifyEmail', { input: { token } });
    expect(reused.body.errors?.[0].extensions).toMatchObject({ type: 'token_error', status: 401 });
  });
});

describe('POST /auth/resend-verification', () => {
  it('answers 202 with the same body for an unverified, a verified and an unknown address, and mails only the unverified one', async () => {
    const unverified = await signUp();
    const verified = await signUp();
    expect((await rest(api, 'POST', '/auth/verify-email', { body: { token: verified.token } })).status).toBe(200);
    const unknown = `${randomKey('nobody')}@example.test`;
    const replies = await Promise.all(
      [unverified.email, verified.email, unknown].map((email) => rest(api, 'POST', '/auth/resend-verification', { body: { email } })),
    );
    expect(replies.map((reply) => reply.status)).toEqual([202, 202, 202]);
    expect(replies[1].body).toEqual(replies[0].body);
    expect(replies[2].body).toEqual(replies[0].body);
    const kinds = async (email: string) => (await outboxOf(email)).filter((row) => row.kind === 'email_verification').length;
    expect(await kinds(unverified.email)).toBe(2);
    expect(await kinds(verified.email)).toBe(1);
    expect(await kinds(unknown)).toBe(0);
    // The new link works, and spends the older one with it.
    const fresh = await verificationToken(unverified.email);
    expect(fresh).not.toBe(unverified.token);
    expect((await rest(api, 'POST', '/auth/verify-email', { body: { token: fresh } })).status).toBe(200);
    expect((await rest(api, 'POST', '/auth/verify-email', { body: { token: unverified.token } })).body.type).toBe('token_error');
  });

  it('resends through the GraphQL mutation', async () => {
    const user = await createUser();
    const res = await runOperation(api, 'ResendVerification', { input: { email: user.email } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.resend_verification.status).toBe('accepted');
  });
});

describe('with REQUIRE_EMAIL_VERIFICATION', () => {
  it('refuses login with 403 user_verification_error until the mailed link is opened', async () => {
    const previous = config();
    overrideConfig({ REQUIRE_EMAIL_VERIFICATION: true });
    try {
      const email = `${randomKey('required')}@example.test`;
      const signup = await rest(api, 'POST', '/auth/signup', { body: { email, password: PASSWORD } });
      expect(signup.body).toMatchObject({ access_token: null, requires_verification: true });
      const refused = await rest(api, 'POST', '/auth/login', { body: { email, password: PASSWORD } });
      expect(refused.status).toBe(403);
      expect(refused.body.type).toBe('user_verification_error');
      expect((await rest(api, 'POST', '/auth/verify-email', { body: { token: await verificationToken(email) } })).status).toBe(200);
      expect((await rest(api, 'POST', '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    } finally {
      overrideConfig(previous);
    }
  });
});

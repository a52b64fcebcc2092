import { QueryTypes } from 'sequelize';
import { UserModel } from '../../../models';
import { createUser, type TestUser } from '../../factories/accounts';
import { requestResetToken } from '../../factories/mail';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { database } from '../../../src/db/database';

/**
 * Device-code login over the API as the CLI drives it (decisions §14); the
 * page is tested in Chromium (tests/browser/device-login.test.ts).
 */
const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

async function start() {
  const res = await rest(api, 'POST', '/auth/device/code');
  expect(res.status).toBe(200);
  return res.body as { device_code: string; user_code: string; verification_url: string; expires_in: number; expires_at: string };
}

const status = (deviceCode: string) => rest(api, 'GET', `/auth/device/code/${encodeURIComponent(deviceCode)}`);
const approve = (userCode: string, body: Record<string, unknown> = {}, token = user.token) => rest(api, 'POST', '/auth/device/approve', { token, body: { user_code: userCode, ...body } });
const exchange = (deviceCode: string) => rest(api, 'POST', '/auth/device/token', { body: { device_code: deviceCode } });

describe('device-code login', () => {
  it('issues a code pair without a credential, polls pending, approves, and exchanges it once for a working token', async () => {
    const grant = await start();
    expect(grant.user_code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(grant.user_code).not.toMatch(/[01ILOSBZUV258]/);
    expect(grant.verification_url).toMatch(/^https?:\/\/.+\/login\/device$/);
    expect(grant.expires_in).toBe(600);
    expect(new Date(grant.expires_at).getTime()).toBeGreaterThan(Date.now() + 500_000);

    const pending = await status(grant.device_code);
    expect(pending.body).toMatchObject({ status: 'pending', user_id: null });
    expect((await exchange(grant.device_code)).status).toBe(400);

    // Entered in lower case without the dash.
    const approved = await approve(grant.user_code.toLowerCase().replace('-', ''));
    expect(approved.body).toEqual({ status: 'approved', user_code: grant.user_code });
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'approved', user_id: user.id });

    const token = await exchange(grant.device_code);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'bearer', expires_in: expect.any(Number) });
    expect(token.headers.get('cache-control')).toBe('no-store');
    const me = await rest(api, 'GET', '/user', { token: token.body.access_token });
    expect(me.body.id).toBe(user.id);
    // The CLI's next call: an API key with the new token.
    const key = await rest(api, 'POST', '/user/api-keys', { token: token.body.access_token, body: { name: 'dreadnode-a1b2c3', allow_self_revoke: true } });
    expect(key.status).toBe(201);

    const reuse = await exchange(grant.device_code);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ type: 'token_error', detail: expect.stringContaining('already') });
  });

  it('stores device codes only hashed', async () => {
    const grant = await start();
    const rows = await database().query<{ n: string }>('SELECT count(*) AS n FROM device_codes WHERE device_code_hash = $code', { bind: { code: grant.device_code }, type: QueryTypes.SELECT });
    expect(Number(rows[0].n)).toBe(0);
  });

  it('refuses a denied code, and decides a code only once', async () => {
    const grant = await start();
    expect((await approve(grant.user_code, { approve: false })).body).toEqual({ status: 'denied', user_code: grant.user_code });
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'denied', user_id: null });
    const token = await exchange(grant.device_code);
    expect(token.status).toBe(403);
    expect((await approve(grant.user_code)).status).toBe(404);
  });

  it("withdraws an approval when the account's password is reset before the exchange (a revoked session mints nothing)", async () => {
    const victim = await createUser();
    const grant = await start();
    // Approved with a session the owner is about to revoke.
    expect((await approve(grant.user_code, {}, victim.token)).status).toBe(200);
    const token = await requestResetToken(api, victim.email);
    const reset = await rest(api, 'POST', '/auth/reset-password', { body: { email: victim.email, password: 'A new passphrase 42!', token } });
    expect(reset.status).toBe(200);
    // The poll says so rather than sending the CLI to an exchange that must fail.
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'denied', user_id: null });
    const exchanged = await exchange(grant.device_code);
    expect(exchanged.status).toBe(403);
    expect(exchanged.body.access_token).toBeUndefined();
    // A code approved after the reset, with the new session, still works.
    const again = await start();
    expect((await approve(again.user_code, {}, reset.body.access_token)).status).toBe(200);
    expect((await exchange(again.device_code)).status).toBe(200);
  });

  it("reads an approval by a user suspended since as denied, and refuses its exchange without using the code up", async () => {
    const suspended = await createUser();
    const grant = await start();
    expect((await approve(grant.user_code, {}, suspended.token)).status).toBe(200);
    await UserModel.update({ is_suspended: true }, { where: { id: suspended.id } });
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'denied', user_id: null });
    const exchanged = await exchange(grant.device_code);
    expect(exchanged.status).toBe(403);
    expect(exchanged.body).toMatchObject({ type: 'user_suspended' });
    // Expired meanwhile, it reads expired, as the exchange would answer (expiry is checked first).
    const late = await start();
    await UserModel.update({ is_suspended: false }, { where: { id: suspended.id } });
    expect((await approve(late.user_code, {}, suspended.token)).status).toBe(200);
    await UserModel.update({ is_suspended: true }, { where: { id: suspended.id } });
    await database().query(`UPDATE device_codes SET expires_at = now() - interval '1 second' WHERE user_code = $code`, { bind: { code: late.user_code.replace('-', '') } });
    expect((await status(late.device_code)).body).toMatchObject({ status: 'expired', user_id: null });
    expect((await exchange(late.device_code)).body).toMatchObject({ type: 'expired_token_error' });
    // Lifted, the approval holds again: the code was not spent on the refusal.
    await UserModel.update({ is_suspended: false }, { where: { id: suspended.id } });
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'approved', user_id: suspended.id });
    expect((await exchange(grant.device_code)).status).toBe(200);
  });

  it('expires codes: the status says expired, approval is 404, the exchange is refused', async () => {
    const grant = await start();
    await database().query(`UPDATE device_codes SET expires_at = now() - interval '1 second' WHERE user_code = $code`, { bind: { code: grant.user_code.replace('-', '') } });
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'expired' });
    expect((await approve(grant.user_code)).status).toBe(404);
    const token = await exchange(grant.device_code);
    expect(token.status).toBe(400);
    expect(token.body.type).toBe('expired_token_error');
  });

  it('reports an approved code that expired before its exchange as expired, not approved', async () => {
    const grant = await start();
    expect((await approve(grant.user_code)).status).toBe(200);
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'approved', user_id: user.id });
    await database().query(`UPDATE device_codes SET expires_at = now() - interval '1 second' WHERE user_code = $code`, { bind: { code: grant.user_code.replace('-', '') } });
    expect((await status(grant.device_code)).body).toMatchObject({ status: 'expired', user_id: null });
    const token = await exchange(grant.device_code);
    expect(token.status).toBe(400);
    expect(token.body.type).toBe('expired_token_error');
  });

  it('answers 404 for a wrong or malformed user code and an unknown device code, 401 for an approval without a credential', async () => {
    expect((await approve('ACDE-FGHJ')).status).toBe(404);
    expect((await approve('not a code')).status).toBe(404);
    expect((await status('no-such-device-code')).status).toBe(404);
    expect((await exchange('no-such-device-code')).status).toBe(400);
    const grant = await start();
    expect((await rest(api, 'POST', '/auth/device/approve', { body: { user_code: grant.user_code } })).status).toBe(401);
    const empty = await rest(api, 'POST', '/auth/device/token', { body: { device_code: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].loc).toEqual(['body', 'device_code']);
  });

  it('refuses an approval made with an API key (a limited key must not mint a full token)', async () => {
    const grant = await start();
    const key = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'limited', allowed_scopes: ['traces:write'] } });
    const res = await rest(api, 'POST', '/auth/device/approve', { headers: { 'x-api-key': key.body.key }, body: { user_code: grant.user_code } });
    expect(res.status).toBe(403);
    expect((await status(grant.device_code)).body.status).toBe('pending');
  });

  it('lets exactly one of two racing exchanges have the token', async () => {
    const grant = await start();
    await approve(grant.user_code);
    const replies = await Promise.all([exchange(grant.device_code), exchange(grant.device_code), exchange(grant.device_code)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 400, 400]);
  });

  it('lets exactly one of two racing decisions win', async () => {
    const grant = await start();
    const other = await createUser();
    const replies = await Promise.all([approve(grant.user_code), approve(grant.user_code, {}, other.token)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 404]);
  });
});

import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { drainBackground } from '../../../src/core/background';
import { database } from '../../../src/db/database';
import { createUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Tables any caller adds rows to are swept after the reply (expirySweep):
 * device codes a day past their expiry, idempotency keys past theirs. The
 * first call of a process sweeps, so this file's first requests do.
 */
const api = useTestApp();

const count = async (sql: string, bind: Record<string, unknown>) => (await database().query<{ n: number }>(sql, { type: QueryTypes.SELECT, bind }))[0].n;

it('deletes device codes a day past their expiry, and keeps those expired since less', async () => {
  const stale = crypto.randomBytes(16).toString('hex');
  const recent = crypto.randomBytes(16).toString('hex');
  await database().query(
    `INSERT INTO device_codes (device_code_hash, user_code, status, expires_at) VALUES ($stale, 'STALE000', 'used', now() - interval '2 days'), ($recent, 'RECENT00', 'pending', now() - interval '1 hour')`,
    { bind: { stale, recent } },
  );
  expect((await rest(api, 'POST', '/auth/device/code')).status).toBe(200);
  await drainBackground();
  expect(await count('SELECT count(*)::int AS n FROM device_codes WHERE device_code_hash = ANY($hashes)', { hashes: [stale, recent] })).toBe(1);
  expect(await count('SELECT count(*)::int AS n FROM device_codes WHERE device_code_hash = $recent', { recent })).toBe(1);
});

it('deletes idempotency keys past their expiry', async () => {
  const owner = await createUser();
  const credential = `test-${crypto.randomUUID()}`;
  await database().query(`INSERT INTO idempotency_keys (credential, key, fingerprint, expires_at) VALUES ($credential, 'old', 'f', now() - interval '1 minute')`, { bind: { credential } });
  const created = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${crypto.randomBytes(3).toString('hex')}`, name: 'Swept' }, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  expect(created.status).toBe(201);
  await drainBackground();
  expect(await count('SELECT count(*)::int AS n FROM idempotency_keys WHERE credential = $credential', { credential })).toBe(0);
});

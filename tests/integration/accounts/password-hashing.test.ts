import crypto from 'node:crypto';
import { UserModel } from '../../../models';
import { config, loadConfig, overrideConfig } from '../../../src/config/config';
import { hashPassword, mostConcurrentHashes, scryptRuns, verifyPassword } from '../../../src/modules/accounts/password';
import { createUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let previous: ReturnType<typeof config>;

beforeAll(() => {
  previous = config();
  // The production cost: the suite runs with a lower one (tests/setup/env.ts) everywhere else.
  overrideConfig({ PASSWORD_SCRYPT_LOG_N: 17 });
});

afterAll(() => {
  overrideConfig(previous);
});

/** The N of a stored `scrypt$N$r$p$salt$hash`. */
const costOf = (hash: string) => Number(hash.split('$')[1]);

/** A hash as the service made them before the cost was raised (N = 16384). */
function legacyHash(password: string): string {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(password, salt, 64, { N: 16384, r: 8, p: 1 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

describe('password hashing', () => {
  it('uses scrypt with N = 2^17, r = 8, p = 1 by default, and refuses a lower cost outside the test suite', () => {
    expect(loadConfig({}).PASSWORD_SCRYPT_LOG_N).toBe(17);
    expect(() => loadConfig({ PASSWORD_SCRYPT_LOG_N: '14' })).toThrow(/PASSWORD_SCRYPT_LOG_N/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), PASSWORD_SCRYPT_LOG_N: '16' })).toThrow(/PASSWORD_SCRYPT_LOG_N/);
  });

  it('hashes at N = 131072 with a per-user salt, and verifies', async () => {
    const [first, second] = await Promise.all([hashPassword('a-long-enough-password'), hashPassword('a-long-enough-password')]);
    expect(first.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(first).not.toBe(second);
    expect(await verifyPassword('a-long-enough-password', first)).toBe(true);
    expect(await verifyPassword('another-password', first)).toBe(false);
  });

  it('hashes on the threadpool, leaving the event loop free meanwhile', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    try {
      await hashPassword('a-long-enough-password');
      // A blocked loop would not have ticked at all (the count itself depends on the machine's load).
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });

  it('rehashes a weaker stored hash at the current cost on the next successful login', async () => {
    const user = await createUser();
    await UserModel.update({ password_hash: legacyHash(user.password) }, { where: { id: user.id } });
    const wrong = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(costOf((await UserModel.findByPk(user.id))!.password_hash)).toBe(16384);
    const res = await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    const upgraded = (await UserModel.findByPk(user.id))!.password_hash;
    expect(costOf(upgraded)).toBe(131072);
    expect(await verifyPassword(user.password, upgraded)).toBe(true);
    expect((await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(200);
    expect((await UserModel.findByPk(user.id))!.password_hash).toBe(upgraded);
  });

  it('makes a wrong password cost a check at the current cost whatever the account: unknown, or with a weaker hash not yet rehashed', async () => {
    const runs = () => scryptRuns.get(131072) ?? 0;
    const user = await createUser();
    await UserModel.update({ password_hash: legacyHash(user.password) }, { where: { id: user.id } });
    let before = runs();
    expect((await rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong-password' } })).status).toBe(401);
    expect(runs() - before).toBe(1);
    before = runs();
    expect((await rest(api, 'POST', '/auth/login', { body: { email: `nobody-${crypto.randomUUID()}@example.com`, password: 'wrong-password' } })).status).toBe(401);
    expect(runs() - before).toBe(1);
  });

  it('runs at most two hashes at once, the others waiting their turn', async () => {
    const hashes = await Promise.all(Array.from({ length: 5 }, (_, index) => hashPassword(`password-number-${index}`)));
    expect(mostConcurrentHashes()).toBe(2);
    expect(await verifyPassword('password-number-4', hashes[4])).toBe(true);
  });
});

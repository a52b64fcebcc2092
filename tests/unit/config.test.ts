import { loadConfig } from '../../src/config/config';

describe('configuration', () => {
  it('reads JWT_TTL as seconds or with a unit, defaulting to 24 hours', () => {
    expect(loadConfig({}).JWT_TTL).toBe(86400);
    expect(loadConfig({ JWT_TTL: '900' }).JWT_TTL).toBe(900);
    expect(loadConfig({ JWT_TTL: '15m' }).JWT_TTL).toBe(900);
    expect(loadConfig({ JWT_TTL: '7d' }).JWT_TTL).toBe(7 * 86400);
  });

  it('fails fast with a clear message on a bad value', () => {
    expect(() => loadConfig({ JWT_TTL: 'soon' })).toThrow(/JWT_TTL/);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: required/);
  });

  it('requires SECRETS_KEY in production, as 64 hex digits or base64 of 32 bytes', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };
    expect(() => loadConfig(production)).toThrow(/SECRETS_KEY: required/);
    expect(loadConfig({ ...production, SECRETS_KEY: 'ab'.repeat(32) }).SECRETS_KEY).toBe('ab'.repeat(32));
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ ...production, SECRETS_KEY: base64 }).SECRETS_KEY).toBe(base64);
    expect(loadConfig({ ...production, SECRETS_KEY: Buffer.alloc(32, 7).toString('base64url') }).SECRETS_KEY).toBeDefined();
    for (const bad of ['ab'.repeat(31), 'not a key', Buffer.alloc(16).toString('base64'), 'g'.repeat(64)]) {
      expect(() => loadConfig({ ...production, SECRETS_KEY: bad })).toThrow(/SECRETS_KEY: must be 32 bytes/);
    }
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: 'short' })).toThrow(/SECRETS_KEY_PREVIOUS/);
  });

  it('requires e-mail verification by default in production only, and lets either default be overridden', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32) };
    expect(loadConfig(production).REQUIRE_EMAIL_VERIFICATION).toBe(true);
    expect(loadConfig({ ...production, REQUIRE_EMAIL_VERIFICATION: 'false' }).REQUIRE_EMAIL_VERIFICATION).toBe(false);
    expect(loadConfig({}).REQUIRE_EMAIL_VERIFICATION).toBe(false);
    expect(loadConfig({ REQUIRE_EMAIL_VERIFICATION: 'true' }).REQUIRE_EMAIL_VERIFICATION).toBe(true);
  });

  it('reads an empty or blank setting as unset (its default), so `PORT=` or `REQUIRE_EMAIL_VERIFICATION=` switch nothing off', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32) };
    const read = loadConfig({ ...production, PORT: '', REQUIRE_EMAIL_VERIFICATION: '', AUTH_RATE_LIMIT_PER_MINUTE: ' ', LOGIN_ACCOUNT_RATE_LIMIT: '', DB_STATEMENT_TIMEOUT_MS: '', REQUEST_TIMEOUT_MS: '' });
    expect(read).toMatchObject({ PORT: 8000, REQUIRE_EMAIL_VERIFICATION: true, AUTH_RATE_LIMIT_PER_MINUTE: 30, LOGIN_ACCOUNT_RATE_LIMIT: 10, DB_STATEMENT_TIMEOUT_MS: 15000, REQUEST_TIMEOUT_MS: 120_000 });
    // An explicit value still counts.
    expect(loadConfig({ ...production, REQUIRE_EMAIL_VERIFICATION: 'false', AUTH_RATE_LIMIT_PER_MINUTE: '0' })).toMatchObject({ REQUIRE_EMAIL_VERIFICATION: false, AUTH_RATE_LIMIT_PER_MINUTE: 0 });
  });

  it('refuses a token lifetime past a year and a timer past what Node and PostgreSQL keep', () => {
    expect(loadConfig({ JWT_TTL: '365d' }).JWT_TTL).toBe(365 * 86400);
    expect(() => loadConfig({ JWT_TTL: '366d' })).toThrow(/JWT_TTL must be at most 365d/);
    expect(() => loadConfig({ JWT_TTL: '99999999999999d' })).toThrow(/JWT_TTL/);
    for (const name of ['DB_STATEMENT_TIMEOUT_MS', 'SHUTDOWN_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS']) {
      expect(loadConfig({ [name]: '2147483647' })).toMatchObject({ [name]: 2147483647 });
      expect(() => loadConfig({ [name]: '3000000000' })).toThrow(new RegExp(name));
    }
  });
});

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
});

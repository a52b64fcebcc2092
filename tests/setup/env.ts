import os from 'node:os';
import path from 'node:path';

// Runs in every test worker before the test file's imports.
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'silent';
process.env.JWT_SECRET ??= 'test-secret-that-is-long-enough-for-hs256-signing';
process.env.DATA_DIR ??= path.join(os.tmpdir(), 'agent-platform-test-data');
process.env.SEED_DEMO = 'false';
// Quotas are exercised by their own test file with an isolated database.
process.env.RATE_LIMIT_PER_MINUTE ??= '0';
process.env.AUTH_RATE_LIMIT_PER_MINUTE ??= '0';
process.env.LOGIN_ACCOUNT_RATE_LIMIT ??= '0';
// scrypt at the production cost (2^17, ~0.4 s a hash) would make every created user slow; tests that
// check the cost itself raise it with overrideConfig (src/config/config.ts refuses this outside tests).
process.env.PASSWORD_SCRYPT_LOG_N ??= '14';

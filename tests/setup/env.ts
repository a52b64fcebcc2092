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

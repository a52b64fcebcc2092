import path from 'node:path';
import type { ModelCtor } from 'sequelize-typescript';
import { config } from '../config/config';
import { logger } from '../config/logger';
import { connectDatabase, migrate } from './database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

/**
 * DATABASE_URL, or the embedded PostgreSQL with its data under DATA_DIR/pg
 * (kept across restarts): started here, or the one a running server
 * started (`npm run db:*` beside `npm start`).
 */
export async function databaseUrl(): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const url = config().DATABASE_URL;
  if (url) return { url, embedded: null };
  const dataDir = path.resolve(config().DATA_DIR, 'pg');
  const embedded = await startEmbeddedPostgres({
    dataDir,
    persistent: true,
    log: (line) => logger.debug({ postgres: line.trim() }, 'postgres'),
  });
  logger.info({ dataDir, shared: embedded.shared }, embedded.shared ? 'using the embedded PostgreSQL the server runs' : 'DATABASE_URL not set: started embedded PostgreSQL');
  return { url: embedded.url, embedded };
}

/** A URL for printing: its password hidden. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

/** databaseUrl(), then pending migrations, then the pool. */
export async function bootDatabase(models: readonly ModelCtor[]): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const { url, embedded } = await databaseUrl();
  const ran = await migrate(url);
  if (ran.length) logger.info({ migrations: ran }, 'migrations applied');
  connectDatabase(url, {
    poolMax: config().DB_POOL_MAX,
    models,
    statementTimeoutMs: config().DB_STATEMENT_TIMEOUT_MS,
    jit: config().DB_JIT,
    logSql: config().DB_LOG_SQL,
  });
  return { url, embedded };
}

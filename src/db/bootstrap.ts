import path from 'node:path';
import type { ModelCtor } from 'sequelize-typescript';
import { config } from '../config/config';
import { logger } from '../core/logger';
import { connectDatabase, migrate } from './database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

/**
 * Connects to DATABASE_URL, or starts the embedded PostgreSQL with its data
 * under DATA_DIR/pg (kept across restarts), then runs pending migrations.
 */
export async function bootDatabase(models: readonly ModelCtor[]): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  let url = config().DATABASE_URL;
  let embedded: EmbeddedDatabase | null = null;
  if (!url) {
    const dataDir = path.resolve(config().DATA_DIR, 'pg');
    logger.info({ dataDir }, 'DATABASE_URL not set: starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({
      dataDir,
      persistent: true,
      log: (line) => logger.debug({ postgres: line.trim() }, 'postgres'),
    });
    url = embedded.url;
  }
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

import { AsyncLocalStorage } from 'node:async_hooks';
import { Umzug } from 'umzug';
import type { ModelCtor, Sequelize } from 'sequelize-typescript';
import { createSequelize } from '../../models';
import { migrations } from '../../migrations';
import { config } from '../config/config';
import { logger } from '../config/logger';
import type { Client } from 'pg';
import { boundStatementReads } from './read-bound';

/**
 * The process-wide Sequelize instance. Statement listeners let tests count SQL
 * statements (DataLoader batching) without mocking anything.
 */
let instance: Sequelize | undefined;
const statementListeners = new Set<(sql: string) => void>();

export function connectDatabase(
  url: string,
  options: { poolMax: number; models: readonly ModelCtor[]; statementTimeoutMs?: number; jit?: boolean; logSql?: boolean },
): Sequelize {
  if (instance) return instance;
  instance = createSequelize(url, {
    poolMax: options.poolMax,
    models: options.models,
    statementTimeoutMs: options.statementTimeoutMs,
    jit: options.jit,
    connectTimeoutMs: config().DB_CONNECT_TIMEOUT_MS,
    acquireTimeoutMs: config().DB_POOL_ACQUIRE_TIMEOUT_MS,
    logSql: (sql) => {
      for (const listener of statementListeners) listener(sql);
      if (options.logSql) logger.debug({ sql }, 'sql');
    },
  });
  instance.addHook('afterConnect', (connection) => boundStatementReads(connection as Client));
  if (config().NODE_ENV === 'test') holdToOneConnection(instance);
  return instance;
}

/** The transaction whose callback is running (holdToOneConnection); never set outside the tests. */
const open = new AsyncLocalStorage<{ finished?: string }>();

/** Runs `work` outside any transaction's callback: background work started inside one outlives it (core/background.ts). */
export function outsideTransactions<T>(work: () => T): T {
  return open.exit(work);
}

/**
 * Under the tests (NODE_ENV=test), a statement that asks the pool for a
 * connection from inside a transaction's callback while the transaction is
 * open fails at once. Such a statement waits for a second connection while
 * the transaction holds its locks; writes queued behind those locks hold
 * connections too, and once they hold the pool the transaction waits on
 * them and they on it, a deadlock PostgreSQL cannot see, ended only by
 * statement_timeout while every request of the process waits. Inside a
 * transaction, every statement takes the transaction.
 */
function holdToOneConnection(sequelize: Sequelize): void {
  const transaction = sequelize.transaction.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  (sequelize as unknown as { transaction: (...args: unknown[]) => Promise<unknown> }).transaction = (...args: unknown[]) => {
    const callback = args.findIndex((arg) => typeof arg === 'function');
    if (callback >= 0) {
      const run = args[callback] as (t: { finished?: string }) => Promise<unknown>;
      args[callback] = (t: { finished?: string }) => open.run(t, () => run(t));
    }
    return transaction(...args);
  };
  const manager = sequelize.connectionManager as unknown as { getConnection: (...args: unknown[]) => Promise<unknown> };
  const getConnection = manager.getConnection.bind(manager);
  manager.getConnection = (...args: unknown[]) => {
    const held = open.getStore();
    if (held && !held.finished) return Promise.reject(new Error('A statement asked for a second connection inside an open transaction: give it the transaction'));
    return getConnection(...args);
  };
}

export function database(): Sequelize {
  if (!instance) throw new Error('Database not connected: call connectDatabase() first');
  return instance;
}

export async function closeDatabase(): Promise<void> {
  if (!instance) return;
  const closing = instance;
  instance = undefined;
  await closing.close();
}

/** Reports a statement sent outside Sequelize (src/db/hot.ts) to the listeners. */
export function notifyStatement(sql: string): void {
  for (const listener of statementListeners) listener(sql);
}

/** Calls `listener` with every SQL statement until the returned function is called. */
export function onStatement(listener: (sql: string) => void): () => void {
  statementListeners.add(listener);
  return () => statementListeners.delete(listener);
}

/** The migrations of this folder against `sequelize`, recorded in schema_migrations. */
function migrator(sequelize: Sequelize) {
  return new Umzug({
    migrations: migrations.map((migration) => ({ name: migration.name, up: migration.up })),
    context: sequelize,
    storage: {
      // A plain table instead of umzug's SequelizeStorage keeps one connection
      // and a lock: two replicas starting at once do not run a migration twice.
      async executed({ context }) {
        await context.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())');
        const [rows] = await context.query('SELECT name FROM schema_migrations ORDER BY name');
        return (rows as { name: string }[]).map((row) => row.name);
      },
      async logMigration({ name, context }) {
        await context.query('INSERT INTO schema_migrations (name) VALUES (:name)', { replacements: { name } });
      },
      async unlogMigration({ name, context }) {
        await context.query('DELETE FROM schema_migrations WHERE name = :name', { replacements: { name } });
      },
    },
    logger: undefined,
  });
}

/** The migrations applied to the database at `url`, and those still pending. */
export async function migrationStatus(url: string): Promise<{ applied: string[]; pending: string[] }> {
  const sequelize = createSequelize(url, { poolMax: 1 });
  try {
    const umzug = migrator(sequelize);
    const [applied, pending] = [await umzug.executed(), await umzug.pending()];
    return { applied: applied.map((item) => item.name), pending: pending.map((item) => item.name) };
  } finally {
    await sequelize.close();
  }
}

/**
 * Runs pending migrations on a dedicated single connection, so the advisory
 * lock that serialises concurrent starts is taken and released on one session.
 */
export async function migrate(url: string): Promise<string[]> {
  const sequelize = createSequelize(url, { poolMax: 1 });
  const umzug = migrator(sequelize);
  try {
    await sequelize.query('SELECT pg_advisory_lock(727272)');
    const ran = await umzug.up();
    await sequelize.query('SELECT pg_advisory_unlock(727272)');
    return ran.map((migration) => migration.name);
  } finally {
    await sequelize.close();
  }
}

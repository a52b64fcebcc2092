import 'reflect-metadata';
import { databaseUrl, displayUrl } from '../db/bootstrap';
import { migrationStatus } from '../db/database';
import { runCli } from './run-cli';

/** `npm run db:status`: the database used, and its applied and pending migrations. */
runCli(async () => {
  const { url, embedded } = await databaseUrl();
  try {
    const { applied, pending } = await migrationStatus(url);
    const where = embedded ? (embedded.shared ? ' (embedded, run by the server)' : ' (embedded)') : '';
    process.stdout.write(
      `${displayUrl(url)}${where}\n${applied.length} migrations applied, last ${applied[applied.length - 1] ?? 'none'}\n` +
        `${pending.length ? `pending: ${pending.join(', ')}` : 'nothing pending'}\n`,
    );
  } finally {
    await embedded?.stop();
  }
});

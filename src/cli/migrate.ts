import 'reflect-metadata';
import { databaseUrl, displayUrl } from '../db/bootstrap';
import { migrate } from '../db/database';
import { runCli } from './run-cli';

/** `npm run db:migrate`: applies pending migrations (the embedded PostgreSQL when DATABASE_URL is unset, the server's while it runs). */
runCli(async () => {
  const { url, embedded } = await databaseUrl();
  try {
    const ran = await migrate(url);
    process.stdout.write(`${displayUrl(url)}\n${ran.length ? `applied: ${ran.join(', ')}` : 'migrations are up to date'}\n`);
  } finally {
    await embedded?.stop();
  }
});

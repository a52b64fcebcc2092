import 'reflect-metadata';
import { bootDatabase } from '../db/bootstrap';
import { platform } from '../modules';
import { closeDatabase } from '../db/database';

/** `npm run db:migrate`: applies pending migrations (embedded PostgreSQL when DATABASE_URL is unset). */
async function main(): Promise<void> {
  const { embedded } = await bootDatabase(platform.models);
  await closeDatabase();
  await embedded?.stop();
  process.stdout.write('migrations are up to date\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

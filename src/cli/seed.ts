import 'reflect-metadata';
import { bootDatabase } from '../db/bootstrap';
import { platform } from '../modules';
import { closeDatabase } from '../db/database';
import { seedDemo } from '../../seeders/demo.seeder';
import { runCli } from './run-cli';

/** `npm run db:seed`: creates the demo organization, user and data if missing. */
async function main(): Promise<void> {
  const { embedded } = await bootDatabase(platform.models);
  const demo = await seedDemo();
  process.stdout.write(demo ? `demo user ${demo.email} / ${demo.password}\ntoken: ${demo.token}\n` : 'database already has users; demo not seeded\n');
  await closeDatabase();
  await embedded?.stop();
}

runCli(main);

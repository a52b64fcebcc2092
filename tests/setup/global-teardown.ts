import type { EmbeddedDatabase } from '../../src/db/embedded';

export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { __embeddedPostgres?: EmbeddedDatabase }).__embeddedPostgres;
  if (database) await database.stop();
}

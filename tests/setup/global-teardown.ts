import fs from 'node:fs';
import type { EmbeddedDatabase } from '../../src/db/embedded';

export default async function globalTeardown(): Promise<void> {
  const { __embeddedPostgres: database, __embeddedPostgresDir: dataDir } = globalThis as { __embeddedPostgres?: EmbeddedDatabase; __embeddedPostgresDir?: string };
  if (database) await database.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}

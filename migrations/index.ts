import fs from 'node:fs';
import path from 'node:path';
import type { Migration } from './types';

/** A migration file: four digits, a dash, a name (`0050-invitations.ts`; `.js` once built). */
const MIGRATION_FILE = /^(\d{4}-[a-z0-9-]+)\.(?:ts|js)$/;

/**
 * Every migration of this folder, in file-name order: adding one is adding
 * its file. Forward-only: a landed migration is never edited; a change is a
 * new file with the next number.
 */
export const migrations: { name: string; up: Migration }[] = fs
  .readdirSync(__dirname)
  .map((file) => MIGRATION_FILE.exec(file))
  .filter((match): match is RegExpExecArray => match !== null)
  .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is found by its file name
  .map((match) => ({ name: match[1], up: (require(path.join(__dirname, match[0])) as { up: Migration }).up }));

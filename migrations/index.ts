import type { Migration } from './types';
import * as m0001 from './0001-core-tenancy';

/**
 * The ordered list of migrations. Forward-only: a landed migration is never
 * edited; a change is a new file appended here.
 */
export const migrations: { name: string; up: Migration }[] = [
  { name: '0001-core-tenancy', up: m0001.up },
];

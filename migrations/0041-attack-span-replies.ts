import type { Migration } from './types';

/**
 * Each attack span keeps its REST reply text (AttackSpanResponse as JSON),
 * written once at ingest with the version of the reply's shape: spans never
 * change, and an attack list of 10,000 spans is then one string_agg. Spans
 * without it (ingested before, or under an older shape) are built on the fly
 * when read, so nothing is backfilled here. One statement: either both
 * columns exist or neither does.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`ALTER TABLE airt_attack_spans ADD COLUMN IF NOT EXISTS reply_json text, ADD COLUMN IF NOT EXISTS reply_version smallint`);
};

import type { Migration } from './types';

/**
 * `spans.bytes`: what a span counts against MAX_REPLY_BYTES when it is read
 * (the size of the row the ingest wrote for it, traces.ingest.ts), so a read
 * of many large spans is cut by PostgreSQL as it adds them up, before it
 * builds or sends them. Nullable, without a default: adding it changes only
 * the catalog (no rewrite of the partitions, no long lock). Spans stored
 * before it have none and are measured when read (traces.sql.ts spanBytes)
 * until retention drops their partitions.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query('ALTER TABLE spans ADD COLUMN bytes integer');
};

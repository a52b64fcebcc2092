import type { Migration } from './types';

/**
 * Which compaction compacted a transcript message: `compacted_by`, the seq of
 * that compaction's summary (sessions/transcript.service.ts). A rewind that
 * deletes a summary makes the messages it compacted current again; the seq
 * says which, where the compaction's time would depend on clocks. Rows from
 * before take the first summary of their session appended at or after they
 * were compacted (the compaction appends its summary in the same
 * transaction, a moment later). One transaction.
 */
export const BACKFILL_SQL = `
  UPDATE session_messages m SET compacted_by = (
    SELECT min(s.seq) FROM session_messages s WHERE s.session_id = m.session_id AND s.is_summary AND s.seq > m.seq AND s.created_at >= m.compacted_at)
   WHERE m.compacted_at IS NOT NULL`;

export const up: Migration = async ({ context: sql }) => {
  await sql.transaction(async (transaction) => {
    await sql.query('ALTER TABLE session_messages ADD COLUMN compacted_by integer', { transaction });
    await sql.query(BACKFILL_SQL, { transaction });
  });
};

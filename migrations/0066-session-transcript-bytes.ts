import type { Migration } from './types';

/** Counts every session's stored messages into transcript_bytes (exported for its test). */
export const COUNT_TRANSCRIPTS_SQL = `
  UPDATE sessions s SET transcript_bytes = t.bytes
    FROM (SELECT m.session_id,
                 sum(octet_length(coalesce(m.content::text, '')) + octet_length(coalesce(m.tool_calls::text, '')) + octet_length(coalesce(m.metadata::text, ''))) AS bytes
            FROM session_messages m GROUP BY m.session_id) t
   WHERE s.id = t.session_id`;

/**
 * `sessions.transcript_bytes`: the size of a session's stored messages (the
 * text of their content, tool_calls and metadata), kept by every transcript
 * write under the session's row lock, so an append past
 * SESSION_MAX_TRANSCRIPT_BYTES is refused and every read of one transcript
 * (a page, a trajectory, a session's events) is bounded by it. Existing
 * sessions are counted once here.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`ALTER TABLE sessions ADD COLUMN transcript_bytes bigint NOT NULL DEFAULT 0`);
  await sql.query(COUNT_TRANSCRIPTS_SQL);
};

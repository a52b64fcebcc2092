import type { Migration } from './types';

/**
 * `session_messages.bytes`: what a stored message counts against
 * SESSION_MAX_TRANSCRIPT_BYTES (the text of its content, tool calls and
 * metadata, as PostgreSQL writes them), kept by PostgreSQL itself (a stored
 * generated column). The transcript writes add and subtract it from
 * `sessions.transcript_bytes`, and the reads add it up, so a request that
 * reads many transcripts at once is held to MAX_REPLY_BYTES before it
 * loads them.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    ALTER TABLE session_messages ADD COLUMN bytes integer NOT NULL GENERATED ALWAYS AS (
      octet_length(coalesce(content::text, '')) + octet_length(coalesce(tool_calls::text, '')) + octet_length(coalesce(metadata::text, ''))
    ) STORED`);
};

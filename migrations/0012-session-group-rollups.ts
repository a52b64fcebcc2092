import type { Migration } from './types';

/**
 * Session group counts become columns of the group row, maintained on every
 * session write (src/modules/session-groups/group-rollups.ts), and are
 * backfilled here from the sessions and messages that exist.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    ALTER TABLE session_groups
      ADD COLUMN session_count integer NOT NULL DEFAULT 0,
      ADD COLUMN active_session_count integer NOT NULL DEFAULT 0,
      ADD COLUMN message_count bigint NOT NULL DEFAULT 0,
      ADD COLUMN total_tokens bigint NOT NULL DEFAULT 0,
      ADD COLUMN last_activity_at timestamptz;

    UPDATE session_groups g SET
      session_count = r.session_count, active_session_count = r.active_session_count, message_count = r.message_count,
      total_tokens = r.total_tokens, last_activity_at = r.last_activity_at
      FROM (
        SELECT s.group_id,
               count(*) AS session_count,
               count(*) FILTER (WHERE s.archived_at IS NULL) AS active_session_count,
               coalesce(sum(s.message_count), 0) AS message_count,
               coalesce(sum(t.tokens), 0) AS total_tokens,
               max(coalesce(s.last_message_at, s.created_at)) AS last_activity_at
          FROM sessions s
          LEFT JOIN LATERAL (
            SELECT sum(coalesce(m.input_tokens, 0) + coalesce(m.output_tokens, 0)) AS tokens
              FROM session_messages m WHERE m.session_id = s.id AND m.has_usage
          ) t ON TRUE
         WHERE s.group_id IS NOT NULL
         GROUP BY s.group_id
      ) r
     WHERE g.id = r.group_id;
  `);
};

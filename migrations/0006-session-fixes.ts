import type { Migration } from './types';

/**
 * Session fixes (forward-only; 0004/0005 stay as landed):
 * - bounds on message usage, so sums over a session cannot overflow: tokens
 *   0 … 100,000,000 and cost 0 … 1,000,000 per message (the API answers 422
 *   beyond). Values stored before these limits are capped first, so the
 *   constraints are validated over every row.
 * - recent_message_count is derived when read (messages of the last 24 h),
 *   so the stored column, which never decayed, is dropped.
 * - sessions_labels_idx is dropped: no query uses it (the label filter is
 *   `(labels -> key) ?| values`, which jsonb_path_ops cannot serve); facets
 *   and the list use sessions_active_workspace_idx. It only cost writes.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    UPDATE session_messages SET
      input_tokens = LEAST(input_tokens, 100000000),
      output_tokens = LEAST(output_tokens, 100000000),
      cache_creation_input_tokens = LEAST(cache_creation_input_tokens, 100000000),
      cache_read_input_tokens = LEAST(cache_read_input_tokens, 100000000),
      cost_usd = LEAST(cost_usd, 1000000)
    WHERE input_tokens > 100000000 OR output_tokens > 100000000 OR cache_creation_input_tokens > 100000000
       OR cache_read_input_tokens > 100000000 OR cost_usd > 1000000;

    ALTER TABLE session_messages
      ADD CONSTRAINT session_messages_usage_bounds CHECK (
        (input_tokens IS NULL OR input_tokens BETWEEN 0 AND 100000000)
        AND (output_tokens IS NULL OR output_tokens BETWEEN 0 AND 100000000)
        AND (cache_creation_input_tokens IS NULL OR cache_creation_input_tokens BETWEEN 0 AND 100000000)
        AND (cache_read_input_tokens IS NULL OR cache_read_input_tokens BETWEEN 0 AND 100000000)
        AND (cost_usd IS NULL OR (cost_usd >= 0 AND cost_usd <= 1000000))
      );

    ALTER TABLE sessions DROP COLUMN recent_message_count;

    DROP INDEX IF EXISTS sessions_labels_idx;
  `);
};

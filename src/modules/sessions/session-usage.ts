import { fromRow } from '../../core/graphql-sql/sql-fields';
import { SessionUsageResponse } from './sessions.types';

/**
 * A session's usage, derived at read time from its messages: the aggregate
 * SQL (used by the batched loader and the compiled `usage` and
 * `recent_message_count` fields).
 */
const TOKEN_COLUMNS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/** Window and cap of recent_message_count. */
export const RECENT_WINDOW_HOURS = 24;
export const RECENT_MAX = 25;

/** What the per-request `sessionStats` loader derives from a session's messages. */
export interface SessionStats {
  usage: SessionUsageResponse;
  /** Messages of the last 24 h, at most 25; null for a session without transcript messages. */
  recent_message_count: number | null;
}

/** recent_message_count over a session's messages `m`: null without transcript messages. */
export const RECENT_COUNT = `CASE WHEN count(*) = 0 THEN NULL
  ELSE LEAST(${RECENT_MAX}, count(*) FILTER (WHERE m.created_at > now() - make_interval(hours => ${RECENT_WINDOW_HOURS}))) END`;

/**
 * The usage aggregate over a session's messages `m` (one row per group of
 * `m`, or the empty aggregate of a session without messages): total_* over
 * every message, current_* over non-compacted ones; costs null when no
 * message of the session reported one, current cost 0 once all costed
 * messages are compacted; and recent_message_count (RECENT_COUNT).
 */
export const USAGE_AGGREGATE = `
           count(*) AS total_message_count,
           count(*) FILTER (WHERE m.compacted_at IS NULL) AS current_message_count,
           count(*) FILTER (WHERE m.is_summary) AS compaction_count,
           ${TOKEN_COLUMNS.map(
             (column) => `coalesce(sum(m.${column}), 0) AS total_${column},
           coalesce(sum(m.${column}) FILTER (WHERE m.compacted_at IS NULL), 0) AS current_${column},`,
           ).join('\n           ')}
           coalesce(sum(m.tool_call_count), 0) AS total_tool_call_count,
           coalesce(sum(m.tool_call_count) FILTER (WHERE m.compacted_at IS NULL), 0) AS current_tool_call_count,
           sum(m.cost_usd) AS total_cost_usd,
           CASE WHEN count(m.cost_usd) > 0
                THEN coalesce(sum(m.cost_usd) FILTER (WHERE m.compacted_at IS NULL), 0) END AS current_cost_usd,
           ${RECENT_COUNT} AS recent_message_count`;

/** The input tokens of the newest message with usage of session `sessionExpr`, through session_messages_usage_idx (LIMIT 1, not an array). */
export const lastGenerationSql = (sessionExpr: string, orgExpr?: string) =>
  `SELECT x.input_tokens FROM session_messages x WHERE x.session_id = ${sessionExpr}${orgExpr ? ` AND x.organization_id = ${orgExpr}` : ''}
      AND x.has_usage ORDER BY x.seq DESC LIMIT 1`;

/** A row of USAGE_AGGREGATE (with last_generation_input_tokens) as the loader's stats. */
export function toStats(row: Record<string, unknown>): SessionStats {
  return { usage: fromRow(SessionUsageResponse, row), recent_message_count: row.recent_message_count as number | null };
}

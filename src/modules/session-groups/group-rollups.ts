import type { Transaction } from 'sequelize';
import { plainQuery } from '../../db/hot';

/**
 * A group's counts (decisions §6): session_count, active_session_count,
 * message_count, total_tokens (input + output of every message with usage)
 * and last_activity_at (the latest of each session's last message, or its
 * creation) over every session of the group, whoever owns it. They are
 * columns of the group row, maintained in the transaction of each session
 * write, so reading them costs nothing:
 *
 * - hot writes (a new session, a transcript append or compaction, archive,
 *   a changed message_count) add a delta;
 * - rare writes (a session deleted or moved to another group) recount the
 *   groups involved from their sessions.
 *
 * Callers hold the session's row lock; the group row is locked last, so
 * writes to sessions of one group queue only on that short UPDATE.
 */
export interface RollupDelta {
  sessions?: number;
  active?: number;
  messages?: number;
  tokens?: number;
  /** A time of activity in the group: last_activity_at becomes the later of the two. */
  activityAt?: Date;
}

export async function addToGroupRollup(groupId: string, delta: RollupDelta, transaction: Transaction): Promise<void> {
  await plainQuery(
    `UPDATE session_groups SET
       session_count = session_count + $sessions,
       active_session_count = active_session_count + $active,
       message_count = message_count + $messages,
       total_tokens = total_tokens + $tokens,
       last_activity_at = CASE WHEN $activity::timestamptz IS NULL THEN last_activity_at
                               ELSE greatest(last_activity_at, $activity::timestamptz) END
     WHERE id = $id`,
    {
      id: groupId,
      sessions: delta.sessions ?? 0,
      active: delta.active ?? 0,
      messages: delta.messages ?? 0,
      tokens: delta.tokens ?? 0,
      activity: delta.activityAt ?? null,
    },
    { transaction },
  );
}

/** The counts of the groups `$ids`, recounted from their sessions and messages (zeros for an empty group). */
export const RECOUNT_SQL = `
  SELECT x.id AS group_id,
         count(s.id) AS session_count,
         count(s.id) FILTER (WHERE s.archived_at IS NULL) AS active_session_count,
         coalesce(sum(s.message_count), 0) AS message_count,
         coalesce(sum(t.tokens), 0) AS total_tokens,
         max(coalesce(s.last_message_at, s.created_at)) AS last_activity_at
    FROM unnest($ids::uuid[]) AS x(id)
    LEFT JOIN sessions s ON s.group_id = x.id
    LEFT JOIN LATERAL (
      SELECT sum(coalesce(m.input_tokens, 0) + coalesce(m.output_tokens, 0)) AS tokens
        FROM session_messages m WHERE m.session_id = s.id AND m.has_usage
    ) t ON TRUE
   GROUP BY x.id`;

export async function recountGroups(groupIds: (string | null | undefined)[], transaction?: Transaction): Promise<void> {
  const ids = [...new Set(groupIds.filter((id): id is string => Boolean(id)))].sort();
  if (!ids.length) return;
  // Lock the rows first (in id order), then recount in a new statement: under
  // READ COMMITTED it sees every delta committed before the lock was granted,
  // where a single UPDATE … FROM (recount) would write totals from a snapshot
  // taken before it waited, losing a concurrent delta.
  if (transaction) {
    await plainQuery('SELECT id FROM session_groups WHERE id = ANY($ids::uuid[]) ORDER BY id FOR NO KEY UPDATE', { ids }, { transaction });
  }
  await plainQuery(
    `UPDATE session_groups g SET
       session_count = r.session_count, active_session_count = r.active_session_count, message_count = r.message_count,
       total_tokens = r.total_tokens, last_activity_at = r.last_activity_at
       FROM (${RECOUNT_SQL}) r
      WHERE g.id = r.group_id`,
    { ids },
    { transaction },
  );
}

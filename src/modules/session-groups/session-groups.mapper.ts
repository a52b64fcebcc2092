import type { RecordOf, SessionGroupModel } from '../../../models';
import { column, columns, timestamp, valuesJson } from '../../core/graphql-sql/sql-fields';
import type { SessionGroupKindEnum, SessionGroupStatusEnum, SessionGroupSummary } from './session-groups.types';

/** Row → GraphQL type (metadata stays internal); the counts are columns maintained on write. */
export function toSessionGroup(row: RecordOf<SessionGroupModel>): SessionGroupSummary {
  return {
    id: row.id,
    kind: row.kind as SessionGroupKindEnum,
    status: row.status as SessionGroupStatusEnum | null,
    title: row.title,
    worker: row.worker,
    capability: row.capability,
    capability_version: row.capability_version,
    evaluation_id: row.evaluation_id,
    evaluation_item_id: row.evaluation_item_id,
    evaluation_item_attempt_id: row.evaluation_item_attempt_id,
    runtime_id: row.runtime_id,
    active_session_count: row.active_session_count,
    session_count: row.session_count,
    message_count: Number(row.message_count),
    total_tokens: Number(row.total_tokens),
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    last_activity_at: row.last_activity_at,
    workspace_id: row.workspace_id,
    project_id: row.project_id,
  };
}

/** toSessionGroup in SQL (core/graphql-sql): the fields of a SessionGroupSummary over a `session_groups` row, in reply order. */
export const SESSION_GROUP_SQL = {
  ...columns('id', 'kind', 'status', 'title', 'worker', 'capability', 'capability_version', 'evaluation_id', 'evaluation_item_id'),
  ...columns('evaluation_item_attempt_id', 'runtime_id', 'active_session_count', 'session_count', 'message_count'),
  total_tokens: column('total_tokens'),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
  started_at: timestamp('started_at'),
  completed_at: timestamp('completed_at'),
  last_activity_at: timestamp('last_activity_at'),
};

/**
 * toSessionGroup in SQL: the SessionGroupSummary of `session_groups` row
 * `alias` as JSON, null when the join found none (REST session list, @RestJson).
 */
export function sessionGroupJson(alias: string): string {
  return `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE ${valuesJson(SESSION_GROUP_SQL, alias)} END`;
}

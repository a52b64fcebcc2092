import type { RecordOf, SessionGroupModel } from '../../../models';
import { compactJson, jsonTimestamp } from '../../db/json-sql';
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

/**
 * toSessionGroup in SQL: the SessionGroupSummary of `session_groups` row
 * `alias` as JSON, null when the join found none (REST session list, @RestJson).
 */
export function sessionGroupJson(alias: string): string {
  const c = (column: string) => `${alias}.${column}`;
  return `CASE WHEN ${c('id')} IS NULL THEN NULL ELSE ${compactJson(`
    ${c('id')} AS id, ${c('kind')} AS kind, ${c('status')} AS status, ${c('title')} AS title, ${c('worker')} AS worker,
    ${c('capability')} AS capability, ${c('capability_version')} AS capability_version, ${c('evaluation_id')} AS evaluation_id,
    ${c('evaluation_item_id')} AS evaluation_item_id, ${c('evaluation_item_attempt_id')} AS evaluation_item_attempt_id,
    ${c('runtime_id')} AS runtime_id, ${c('active_session_count')} AS active_session_count, ${c('session_count')} AS session_count,
    ${c('message_count')} AS message_count, ${c('total_tokens')} AS total_tokens, ${jsonTimestamp(c('created_at'))} AS created_at,
    ${jsonTimestamp(c('updated_at'))} AS updated_at, ${jsonTimestamp(c('started_at'))} AS started_at,
    ${jsonTimestamp(c('completed_at'))} AS completed_at, ${jsonTimestamp(c('last_activity_at'))} AS last_activity_at`)} END`;
}

import type { RecordOf, SessionGroupModel } from '../../../models';
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

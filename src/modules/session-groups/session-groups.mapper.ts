import type { SessionGroupModel } from '../../../models';
import type { SessionGroupStats } from './session-groups.loaders';
import type { SessionGroupKindEnum, SessionGroupStatusEnum, SessionGroupSummary } from './session-groups.types';

/** Row plus its derived stats → GraphQL type (metadata stays internal). */
export function toSessionGroup(row: SessionGroupModel, stats: SessionGroupStats): SessionGroupSummary {
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
    active_session_count: stats.active_session_count,
    session_count: stats.session_count,
    message_count: stats.message_count,
    total_tokens: stats.total_tokens,
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    last_activity_at: stats.last_activity_at,
    workspace_id: row.workspace_id,
    project_id: row.project_id,
  };
}

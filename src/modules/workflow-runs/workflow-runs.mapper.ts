import type { RecordOf, WorkflowRunModel } from '../../../models';
import type { WorkflowRunSummary } from './workflow-runs.types';

/** Row → GraphQL type (created_by stays internal). */
export function toWorkflowRun(row: RecordOf<WorkflowRunModel>): WorkflowRunSummary {
  return {
    id: row.id,
    definition_id: row.definition_id,
    organization_id: row.organization_id,
    project_id: row.project_id,
    workspace_id: row.workspace_id,
    runtime_id: row.runtime_id,
    session_group_id: row.session_group_id,
    host_kind: row.host_kind,
    status: row.status,
    title: row.title,
    error: row.error,
    last_fact_seq: row.last_fact_seq,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    run_heartbeat_at: row.run_heartbeat_at,
  };
}

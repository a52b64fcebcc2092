import type { AssessmentModel, RecordOf } from '../../../models';
import type { AssessmentResponse, AssessmentStatusEnum, SandboxSummary } from './assessments.types';

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function toSandbox(value: Record<string, unknown> | null): SandboxSummary | null {
  if (!value) return null;
  return {
    provider: String(value.provider ?? ''),
    provider_sandbox_id: String(value.provider_sandbox_id ?? ''),
    state: String(value.state ?? ''),
    total_runtime_seconds: num(value.total_runtime_seconds),
  };
}

/** Row → GraphQL type; created_by_user resolves through the userById loader. */
export function toAssessment(row: RecordOf<AssessmentModel>): AssessmentResponse {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status as AssessmentStatusEnum,
    organization_id: row.organization_id,
    workspace_id: row.workspace_id,
    project_id: row.project_id,
    user_id: row.user_id,
    session_id: row.session_id,
    runtime_id: row.runtime_id,
    sandbox_id: row.sandbox_id,
    attack_manifest: row.attack_manifest,
    attacker_config: row.attacker_config,
    target_config: row.target_config,
    attacker_model: row.attacker_model,
    judge_model: row.judge_model,
    target_model: row.target_model,
    overall_asr: num(row.overall_asr),
    risk_score: num(row.risk_score),
    analytics_snapshot: row.analytics_snapshot,
    workflow_run_id: row.workflow_run_id,
    workflow_script: row.workflow_script,
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    sandbox_detail: toSandbox(row.sandbox_detail),
  };
}

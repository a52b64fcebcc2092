import type { AssessmentModel, AttackSpanModel, RecordOf } from '../../../models';
import type { AssessmentResponse, AssessmentStatusEnum, AttackSpanResponse, MediaSource, MessagePart, SandboxSummary } from './assessments.types';

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

function toSource(value: Record<string, unknown> | null | undefined): MediaSource | null {
  if (!value) return null;
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : null);
  return {
    ref: text('ref') ?? 'artifact',
    artifact_oid: text('artifact_oid'),
    byte_size: typeof value.byte_size === 'number' ? value.byte_size : null,
    detail: text('detail'),
    file_id: text('file_id'),
    filename: text('filename'),
    media_type: text('media_type'),
    url: text('url'),
  };
}

function toParts(value: Record<string, unknown>[] | null): MessagePart[] | null {
  if (!value) return null;
  return value.map((part) => ({
    kind: String(part.kind ?? ''),
    text: (part.text as string | undefined) ?? null,
    caption: (part.caption as string | undefined) ?? null,
    transform: (part.transform as string | undefined) ?? null,
    variant: (part.variant as string | undefined) ?? null,
    source: toSource(part.source as Record<string, unknown> | null | undefined),
  }));
}

/** A stored span → AttackSpanResponse with every spec default filled (the columns hold the defaults already). */
export function toAttackSpan(row: RecordOf<AttackSpanModel>): AttackSpanResponse {
  return {
    attack_name: row.attack_name,
    goal: row.goal,
    goal_category: row.goal_category,
    asr: Number(row.asr),
    attacker_model: row.attacker_model,
    target_model: row.target_model,
    evaluator_model: row.evaluator_model,
    best_candidate: row.best_candidate,
    best_candidate_parts: toParts(row.best_candidate_parts),
    best_response: row.best_response,
    best_response_parts: toParts(row.best_response_parts),
    best_modality_scores: row.best_modality_scores,
    best_score: Number(row.best_score),
    category: row.category,
    sub_category: row.sub_category,
    execution_time_s: Number(row.execution_time_s),
    finished_trials: row.finished_trials,
    total_trials: row.total_trials,
    is_jailbreak: row.is_jailbreak,
    span_id: row.span_id,
    trace_id: row.trace_id,
    transforms: row.transforms ?? [],
  };
}

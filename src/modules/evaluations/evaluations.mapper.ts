import { EMBEDDED_LIST_CAP } from '../../core/pagination';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { EvaluationItemResponse, EvaluationJobResponse, type EvaluationSkippedMember, type ItemState, type StoredAnalytics, type TaskSetReference } from './evaluations.types';

/** Item states an item never leaves, and those of an item being worked on. */
export const TERMINAL_STATES: readonly ItemState[] = ['passed', 'failed', 'errored', 'infra_error', 'timed_out', 'cancelled'];
export const IN_FLIGHT_STATES: readonly ItemState[] = ['claiming', 'provisioning', 'agent_running', 'agent_finished', 'verifying'];

/** A row of `evaluations` as selected with `e.*`. */
export interface EvaluationRow extends Record<ItemState, number> {
  id: string;
  organization_id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  kind: string;
  model: string | null;
  agent_type: string | null;
  capability: string | null;
  engine: string | null;
  sandbox_provider: string | null;
  run_id: string | null;
  error_summary: string | null;
  cleanup_policy: string;
  job_status: string;
  runtime_id: string | null;
  created_by: string | null;
  created_by_email: string | null;
  queued_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  cancel_requested_at: Date | null;
  dataset_ref: Record<string, unknown> | null;
  config_json: Record<string, unknown> | null;
  summary_json: Record<string, unknown> | null;
  dataset_size: number;
  requested_concurrency: number;
  effective_concurrency: number;
  task_timeout_sec: number | null;
  analytics: StoredAnalytics | null;
  skipped_members: EvaluationSkippedMember[];
  /** On a list's rows (listedJobSql), where skipped_members holds the first EMBEDDED_LIST_CAP. */
  skipped_members_count?: number;
  task_set_ref: TaskSetReference | null;
  task_set_id: string | null;
  retry_rounds: number;
  created_at: Date;
  updated_at: Date;
}

export interface EvaluationItemRow {
  id: string;
  evaluation_id: string;
  organization_id: string;
  workspace_id: string;
  position: number;
  task_id: string | null;
  task_name: string;
  task_version: string | null;
  status: string;
  attempt: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

/** Row → reply: the fields EvaluationJobResponse declares, with the task set's id its navigation reads. */
export function toEvaluation(row: EvaluationRow): EvaluationJobResponse {
  return Object.assign(fromRow(EvaluationJobResponse, row), { task_set_id: row.task_set_id });
}

/**
 * A job as a list reads it, from the whole `evaluations` row `row`: every
 * column, with `skipped_members` cut to its first EMBEDDED_LIST_CAP elements
 * and their number beside (the single read selects them all). Joined as
 * `CROSS JOIN LATERAL ${listedJobSql('e')} c`, selecting `c.*`.
 */
export function listedJobSql(row: string): string {
  return `(SELECT p.*, coalesce(jsonb_array_length((${row}).skipped_members), 0) AS skipped_members_count
     FROM jsonb_populate_record(${row}, jsonb_build_object('skipped_members',
       jsonb_path_query_array((${row}).skipped_members, '$[0 to ${EMBEDDED_LIST_CAP - 1}]'))) p)`;
}

/** Row → reply: the fields EvaluationItemResponse declares, with the keys its task navigation reads. */
export function toEvaluationItem(row: EvaluationItemRow): EvaluationItemResponse {
  return Object.assign(fromRow(EvaluationItemResponse, row), { task_id: row.task_id, organization_id: row.organization_id });
}

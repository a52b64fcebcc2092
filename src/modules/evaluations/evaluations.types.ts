import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { derived, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { itemCounts, toAnalytics } from './evaluations.mapper';
import { MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { EMBEDDED_LIST_CAP } from '../../core/pagination';
import { JSONObjectScalar, UUIDScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { MAX_TASK_SET_MEMBERS } from '../catalogs/catalogs.inputs';
import { MAX_TASK_NAMES } from './evaluations.inputs';

/** The states of an evaluation item (spec: EvaluationControlPlaneSummary's counters). */
export enum EvaluationItemStatus {
  queued = 'queued',
  claiming = 'claiming',
  provisioning = 'provisioning',
  agent_running = 'agent_running',
  agent_finished = 'agent_finished',
  verifying = 'verifying',
  passed = 'passed',
  failed = 'failed',
  errored = 'errored',
  infra_error = 'infra_error',
  timed_out = 'timed_out',
  cancelled = 'cancelled',
}
registerEnumType(EvaluationItemStatus, { name: 'EvaluationItemStatus', description: 'Where an evaluation item is in its state machine.' });

/** A job's status: queued until an item leaves `queued`, running, then completed (every item terminal) or cancelled. */
export enum EvaluationJobStatus {
  queued = 'queued',
  running = 'running',
  completed = 'completed',
  cancelled = 'cancelled',
}
registerEnumType(EvaluationJobStatus, { name: 'EvaluationJobStatus' });

export enum EvaluationKind {
  security_task_benchmark = 'security_task_benchmark',
}
registerEnumType(EvaluationKind, { name: 'EvaluationKind' });

export enum EvaluationCleanupPolicy {
  always = 'always',
  on_success = 'on_success',
}
registerEnumType(EvaluationCleanupPolicy, { name: 'EvaluationCleanupPolicy' });

export enum SkippedMemberReason {
  not_found = 'not_found',
  no_verification = 'no_verification',
}
registerEnumType(SkippedMemberReason, { name: 'EvaluationSkippedMemberReason' });

export enum EvaluationSummaryStatus {
  pending = 'pending',
  completed = 'completed',
  failed = 'failed',
}
registerEnumType(EvaluationSummaryStatus, { name: 'EvaluationSummaryStatus' });

@ObjectType('EvaluationControlPlaneSummary', { description: 'The live number of items in each state.' })
export class EvaluationControlPlaneSummary {
  @Field(() => Int) queued: number;
  @Field(() => Int) claiming: number;
  @Field(() => Int) provisioning: number;
  @Field(() => Int) agent_running: number;
  @Field(() => Int) agent_finished: number;
  @Field(() => Int) verifying: number;
  @Field(() => Int) passed: number;
  @Field(() => Int) failed: number;
  @Field(() => Int) errored: number;
  @Field(() => Int) infra_error: number;
  @Field(() => Int) timed_out: number;
  @Field(() => Int) cancelled: number;
}

@ObjectType('EvaluationSummaryResponse', { description: 'The analytics of a completed evaluation.' })
export class EvaluationSummaryResponse {
  @Field(() => Int) dataset_size: number;
  // Float: a job retried over weeks passes 2^31 ms; the value is always a whole number.
  @Field(() => Float, { description: 'Milliseconds (a whole number).' }) duration_ms: number;
  @Field(() => Int, { description: 'Items that ended errored, infra_error or timed_out.' }) error_count: number;
  @Field(() => Int) failed_count: number;
  @Field(() => Int, { description: 'Attempt rounds: 1, plus one per retry-failed.' }) iterations: number;
  @Field(() => JSONObjectScalar) mean_scores: Record<string, number>;
  @Field(() => String) name: string;
  @Field(() => JSONObjectScalar) params: Record<string, unknown>;
  @Field(() => Float, { nullable: true, description: 'passed / terminal items; null when none is terminal.' }) pass_rate: number | null;
  @Field(() => Int) passed_count: number;
  @Field(() => Int) scenario_count: number;
  @Field(() => String) span_id: string;
  @Field(() => EvaluationSummaryStatus) status: EvaluationSummaryStatus;
  @Field(() => String, { nullable: true }) stop_reason: string | null;
  @Field(() => [String]) @MaxItems(NOMINAL_MAX_ITEMS) tags: string[];
  @Field(() => String, { nullable: true }) task_id: string | null;
  @Field(() => Date) timestamp: Date;
  @Field(() => Int) total_samples: number;
  @Field(() => String) trace_id: string;
}

@ObjectType('EvaluationSkippedMember', { description: 'A task name or task-set member left out at creation.' })
export class EvaluationSkippedMember {
  @Field(() => SkippedMemberReason) reason: SkippedMemberReason;
  @Field(() => String) task_name: string;
  @Field(() => String, { nullable: true }) task_version: string | null;
}

@ObjectType('TaskSetReference', { description: 'The task set as it was at creation (no liveness check).' })
export class TaskSetReference {
  @Field(() => UUIDScalar) id: string;
  @Field(() => String) name: string;
  @Field(() => String, { nullable: true, description: '`<org>/<name>`.' }) org_key: string | null;
}

@ObjectType('EvaluationJobResponse', { description: 'An evaluation job with its live item counters.' })
export class EvaluationJobResponse {
  @Sql() @Field(() => UUIDScalar) id: string;
  @Sql() @Field(() => String) name: string;
  @Sql() @Field(() => String) kind: string;
  @Sql() @Field(() => String, { nullable: true }) model: string | null;
  @Sql() @Field(() => String, { nullable: true }) agent_type: string | null;
  @Sql() @Field(() => String, { nullable: true }) capability: string | null;
  @Sql() @Field(() => String, { nullable: true }) engine: string | null;
  @Sql() @Field(() => String, { nullable: true }) sandbox_provider: string | null;
  @Sql() @Field(() => String, { nullable: true }) run_id: string | null;
  @Sql() @Field(() => String, { nullable: true }) error_summary: string | null;
  @Sql() @Field(() => String) cleanup_policy: string;
  @Sql() @Field(() => String, { description: 'queued, running, completed or cancelled.' }) job_status: string;
  @Sql() @Field(() => UUIDScalar) organization_id: string;
  @Sql() @Field(() => UUIDScalar) workspace_id: string;
  @Sql() @Field(() => UUIDScalar) project_id: string;
  @Sql() @Field(() => UUIDScalar, { nullable: true }) runtime_id: string | null;
  @Sql() @Field(() => UUIDScalar, { nullable: true }) created_by: string | null;
  @Sql() @Field(() => String, { nullable: true }) created_by_email: string | null;
  @Sql(timestamp) @Field(() => Date) queued_at: Date;
  @Sql(timestamp) @Field(() => Date, { nullable: true }) started_at: Date | null;
  @Sql(timestamp) @Field(() => Date, { nullable: true }) completed_at: Date | null;
  @Sql(timestamp) @Field(() => Date, { nullable: true }) cancel_requested_at: Date | null;
  @Sql() @Field(() => JSONObjectScalar, { nullable: true }) dataset_ref: Record<string, unknown> | null;
  @Sql() @Field(() => JSONObjectScalar, { nullable: true }) config_json: Record<string, unknown> | null;
  @Sql() @Field(() => JSONObjectScalar, { nullable: true }) summary_json: Record<string, unknown> | null;
  @Sql() @Field(() => Int, { description: 'Number of items.' }) dataset_size: number;
  @Sql() @Field(() => Int) requested_concurrency: number;
  @Sql() @Field(() => Int, { description: 'min(concurrency, items).' }) effective_concurrency: number;
  @Sql() @Field(() => Int, { nullable: true }) task_timeout_sec: number | null;
  @Sql(derived((row) => itemCounts(row as never))) @Field(() => EvaluationControlPlaneSummary) item_counts: EvaluationControlPlaneSummary;
  @Sql(derived((row) => toAnalytics(row as never)))
  @Field(() => EvaluationSummaryResponse, { nullable: true, description: 'Set when every item is terminal (job completed).' })
  analytics: EvaluationSummaryResponse | null;
  @Sql(derived((row) => row.skipped_members ?? []))
  @Field(() => [EvaluationSkippedMember], { description: `Task names and task-set members left out at creation: the first ${EMBEDDED_LIST_CAP} in a list, all of them in a single read.` })
  @MaxItems(() => MAX_TASK_NAMES + MAX_TASK_SET_MEMBERS)
  skipped_members: EvaluationSkippedMember[];
  @Sql(derived((row) => row.skipped_members_count ?? (row.skipped_members as unknown[] | null)?.length ?? 0)) @Field(() => Int, { description: 'How many members were skipped at creation (all of them, in a list too).' }) skipped_members_count: number;
  @Sql(derived((row) => row.task_set_ref)) @Field(() => TaskSetReference, { nullable: true }) task_set_ref: TaskSetReference | null;

  /** Resolved by a field resolver (userById loader). */
  created_by_user?: UserIdentityResponse | null;
  /** Not exposed: navigation to the task set. */
  task_set_id: string | null;
}

@ObjectType('EvaluationListResponse')
export class EvaluationListResponse {
  @Field(() => [EvaluationJobResponse]) @PageItems() items: EvaluationJobResponse[];
  @Field(() => Int) total: number;
  @Field(() => Int) page: number;
  @Field(() => Int) page_size: number;
}

@ObjectType('EvaluationItemResponse', { description: 'One item of an evaluation: a task, or a dataset row.' })
export class EvaluationItemResponse {
  @Sql() @Field(() => UUIDScalar) id: string;
  @Sql() @Field(() => UUIDScalar) evaluation_id: string;
  @Sql() @Field(() => String, { description: 'The task name, or `dataset[<index>]` for a dataset row.' }) task_name: string;
  @Sql() @Field(() => String, { nullable: true, description: 'The resolved task version; null for a dataset row.' }) task_version: string | null;
  @Sql() @Field(() => EvaluationItemStatus) status: EvaluationItemStatus;
  @Sql() @Field(() => Int, { description: '1 at creation, +1 per retry.' }) attempt: number;
  @Sql(timestamp) @Field(() => Date) created_at: Date;
  @Sql(timestamp) @Field(() => Date, { nullable: true }) started_at: Date | null;
  @Sql(timestamp) @Field(() => Date, { nullable: true }) completed_at: Date | null;
  @Sql() @Field(() => String, { nullable: true }) error: string | null;

  /** Not exposed: navigation to the task. */
  task_id: string | null;
  /** Not exposed: the evaluation's organization, the reader of the item's task (its verification secrets). */
  organization_id: string;
}

@ObjectType('EvaluationItemListResponse')
export class EvaluationItemListResponse {
  @Field(() => [EvaluationItemResponse]) @PageItems() items: EvaluationItemResponse[];
}

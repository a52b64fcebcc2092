import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { derived, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { MaxBytes, MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { EMBEDDED_LIST_CAP } from '../../core/pagination';
import { JSONObjectScalar, UUIDScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { MAX_TASK_SET_MEMBERS } from '../catalogs/catalogs.limits';
import { MAX_RUN_CONFIGURATION_BYTES, MAX_TASK_NAMES } from './evaluations.limits';

/** The most skipped members one evaluation holds (task names and task-set members), all of them in its single read. */
export const maxSkippedMembers = () => MAX_TASK_NAMES + MAX_TASK_SET_MEMBERS;

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
registerEnumType(EvaluationItemStatus, {
  name: 'EvaluationItemStatus',
  description: 'Where an evaluation item is in its state machine.',
  valuesConfig: {
    queued: { description: 'Waiting to be claimed (the state at creation and after a retry).' },
    claiming: { description: 'Being claimed by a runner.' },
    provisioning: { description: 'Its sandbox is being provisioned.' },
    agent_running: { description: 'The agent is working on the task.' },
    agent_finished: { description: 'The agent finished; verification comes next.' },
    verifying: { description: 'The result is being verified.' },
    passed: { description: 'Verification passed (terminal).' },
    failed: { description: 'Verification failed (terminal).' },
    errored: { description: 'Ended with an error (terminal).' },
    infra_error: { description: 'Ended by an infrastructure error (terminal).' },
    timed_out: { description: 'Ran out of time (terminal).' },
    cancelled: { description: 'Cancelled (terminal).' },
  },
});

/** The twelve item states, in state-machine order; each is also a counter column of the job row. */
export const ITEM_STATES = Object.values(EvaluationItemStatus) as ItemState[];
export type ItemState = `${EvaluationItemStatus}`;

/** A job's status: queued until an item leaves `queued`, running, then completed (every item terminal) or cancelled. */
export enum EvaluationJobStatus {
  queued = 'queued',
  running = 'running',
  completed = 'completed',
  cancelled = 'cancelled',
}
registerEnumType(EvaluationJobStatus, {
  name: 'EvaluationJobStatus',
  description: 'Status of an evaluation job.',
  valuesConfig: {
    queued: { description: 'No item has moved yet (also after a retry of a completed job).' },
    running: { description: 'Items are moving.' },
    completed: { description: 'Every item is terminal; analytics are set.' },
    cancelled: { description: 'Cancellation was requested and no item is left to run.' },
  },
});

export enum EvaluationKind {
  security_task_benchmark = 'security_task_benchmark',
}
registerEnumType(EvaluationKind, {
  name: 'EvaluationKind',
  description: 'Kind of an evaluation job.',
  valuesConfig: {
    security_task_benchmark: { description: 'A security task benchmark (the only kind, and the default).' },
  },
});

export enum EvaluationCleanupPolicy {
  always = 'always',
  on_success = 'on_success',
}
registerEnumType(EvaluationCleanupPolicy, {
  name: 'EvaluationCleanupPolicy',
  description: "When an item's resources are cleaned up.",
  valuesConfig: {
    always: { description: 'Whatever the outcome (default).' },
    on_success: { description: 'Only when the item succeeds.' },
  },
});

export enum SkippedMemberReason {
  not_found = 'not_found',
  no_verification = 'no_verification',
}
registerEnumType(SkippedMemberReason, {
  name: 'EvaluationSkippedMemberReason',
  description: 'Why a task was left out of an evaluation.',
  valuesConfig: {
    not_found: { description: "No such task the organization can use; also another organization's private task." },
    no_verification: { description: 'The task has no verification configuration.' },
  },
});

export enum EvaluationSummaryStatus {
  pending = 'pending',
  completed = 'completed',
  failed = 'failed',
}
registerEnumType(EvaluationSummaryStatus, {
  name: 'EvaluationSummaryStatus',
  description: "Status of an evaluation's analytics.",
  valuesConfig: {
    pending: { description: 'Not computed yet.' },
    completed: { description: 'Computed once every item was terminal.' },
    failed: { description: 'The evaluation failed.' },
  },
});

@ObjectType('EvaluationControlPlaneSummary', { description: 'The live number of items in each state.' })
export class EvaluationControlPlaneSummary {
  @Field(() => Int, { description: 'Items waiting to be claimed.' }) queued: number;
  @Field(() => Int, { description: 'Items being claimed.' }) claiming: number;
  @Field(() => Int, { description: 'Items whose sandbox is being provisioned.' }) provisioning: number;
  @Field(() => Int, { description: 'Items whose agent is running.' }) agent_running: number;
  @Field(() => Int, { description: 'Items whose agent finished, before verification.' }) agent_finished: number;
  @Field(() => Int, { description: 'Items being verified.' }) verifying: number;
  @Field(() => Int, { description: 'Items that passed.' }) passed: number;
  @Field(() => Int, { description: 'Items that failed verification.' }) failed: number;
  @Field(() => Int, { description: 'Items that ended with an error.' }) errored: number;
  @Field(() => Int, { description: 'Items ended by an infrastructure error.' }) infra_error: number;
  @Field(() => Int, { description: 'Items that ran out of time.' }) timed_out: number;
  @Field(() => Int, { description: 'Items cancelled.' }) cancelled: number;
}

/** A job row's counter columns as the reply's item counts. */
function itemCounts(row: Record<ItemState, number>): EvaluationControlPlaneSummary {
  return Object.fromEntries(ITEM_STATES.map((state) => [state, Number(row[state])])) as unknown as EvaluationControlPlaneSummary;
}

@ObjectType('EvaluationSummaryResponse', { description: 'The analytics of a completed evaluation.' })
export class EvaluationSummaryResponse {
  @Field(() => Int, { description: 'Number of items of the evaluation.' }) dataset_size: number;
  // Float: a job retried over weeks passes 2^31 ms; the value is always a whole number.
  @Field(() => Float, { description: 'Milliseconds (a whole number).' }) duration_ms: number;
  @Field(() => Int, { description: 'Items that ended errored, infra_error or timed_out.' }) error_count: number;
  @Field(() => Int, { description: 'Items that ended failed.' }) failed_count: number;
  @Field(() => Int, { description: 'Attempt rounds: 1, plus one per retry-failed.' }) iterations: number;
  @Field(() => JSONObjectScalar, { description: 'Mean score by scorer name; empty when no scores were recorded.' }) mean_scores: Record<string, number>;
  @Field(() => String, { description: "The evaluation's name." }) name: string;
  @Field(() => JSONObjectScalar, { description: "The evaluation's run configuration (as in config_json)." })
  @MaxBytes(MAX_RUN_CONFIGURATION_BYTES)
  params: Record<string, unknown>;
  @Field(() => Float, { nullable: true, description: 'passed / terminal items; null when none is terminal.' }) pass_rate: number | null;
  @Field(() => Int, { description: 'Items that passed.' }) passed_count: number;
  @Field(() => Int, { description: "Number of scenarios (the evaluation's items)." }) scenario_count: number;
  @Field(() => String, { description: "Id of the evaluation's span; empty when it has none." }) span_id: string;
  @Field(() => EvaluationSummaryStatus, { description: 'Status of the analytics.' }) status: EvaluationSummaryStatus;
  @Field(() => String, { nullable: true, description: 'Why the evaluation stopped early; null when it did not.' }) stop_reason: string | null;
  @Field(() => [String], { description: 'Tags of the evaluation; empty when none.' }) @MaxItems(NOMINAL_MAX_ITEMS) tags: string[];
  @Field(() => String, { nullable: true, description: 'The task the analytics are about; null for analytics of a whole evaluation.' }) task_id: string | null;
  @Field(() => Date, { description: 'When the analytics were computed (when the last item became terminal).' }) timestamp: Date;
  @Field(() => Int, { description: 'Items in a terminal state.' }) total_samples: number;
  @Field(() => String, { description: "The evaluation's trace id (the evaluation's id)." }) trace_id: string;
}

/** Analytics as a job row stores them (jsonb: the timestamp as text). */
export type StoredAnalytics = Omit<EvaluationSummaryResponse, 'timestamp'> & { timestamp: string };

/** A job row's stored analytics as the reply's (null until the job completes). */
export function toAnalytics(row: { analytics: StoredAnalytics | null }): EvaluationSummaryResponse | null {
  return row.analytics ? { ...row.analytics, timestamp: new Date(row.analytics.timestamp) } : null;
}

@ObjectType('EvaluationSkippedMember', { description: 'A task name or task-set member left out at creation.' })
export class EvaluationSkippedMember {
  @Field(() => SkippedMemberReason, { description: 'Why the task was left out.' }) reason: SkippedMemberReason;
  @Field(() => String, { description: 'The task name as given (with `owner/` when one was given).' }) task_name: string;
  @Field(() => String, { nullable: true, description: 'The version asked for; null when none was.' }) task_version: string | null;
}

@ObjectType('TaskSetReference', { description: 'The task set as it was at creation (no liveness check).' })
export class TaskSetReference {
  @Field(() => UUIDScalar, { description: "The task set's id." }) id: string;
  @Field(() => String, { description: "The task set's name." }) name: string;
  @Field(() => String, { nullable: true, description: '`<org>/<name>`.' }) org_key: string | null;
}

@ObjectType('EvaluationJobResponse', { description: 'An evaluation job with its live item counters.' })
export class EvaluationJobResponse {
  @Sql() @Field(() => UUIDScalar, { description: "The evaluation's id." }) id: string;
  @Sql() @Field(() => String, { description: "The evaluation's name." }) name: string;
  @Sql() @Field(() => String, { description: "The evaluation's kind (`security_task_benchmark`)." }) kind: string;
  @Sql() @Field(() => String, { nullable: true, description: 'The model under evaluation.' }) model: string | null;
  @Sql() @Field(() => String, { nullable: true, description: 'The agent type given at creation; null when none.' }) agent_type: string | null;
  @Sql() @Field(() => String, { nullable: true, description: 'The capability given at creation; null when none.' }) capability: string | null;
  @Sql() @Field(() => String, { nullable: true, description: 'The engine given at creation; null when none.' }) engine: string | null;
  @Sql() @Field(() => String, { nullable: true, description: 'The sandbox provider given at creation; null when none.' }) sandbox_provider: string | null;
  @Sql() @Field(() => String, { nullable: true, description: 'Id of the run executing the job; null when none is recorded.' }) run_id: string | null;
  @Sql() @Field(() => String, { nullable: true, description: "A summary of the job's errors; null when none is recorded." }) error_summary: string | null;
  @Sql() @Field(() => String, { description: "When items' resources are cleaned up: `always` or `on_success`." }) cleanup_policy: string;
  @Sql() @Field(() => String, { description: 'queued, running, completed or cancelled.' }) job_status: string;
  @Sql() @Field(() => UUIDScalar, { description: 'Id of the organization the evaluation belongs to.' }) organization_id: string;
  @Sql() @Field(() => UUIDScalar, { description: 'Id of the workspace the evaluation belongs to.' }) workspace_id: string;
  @Sql() @Field(() => UUIDScalar, { description: 'Id of the project the evaluation belongs to.' }) project_id: string;
  @Sql() @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, as given at creation (not checked); null when none.' }) runtime_id: string | null;
  @Sql() @Field(() => UUIDScalar, { nullable: true, description: 'Id of the user who created the evaluation; null when that account no longer exists.' }) created_by: string | null;
  @Sql() @Field(() => String, { nullable: true, description: 'E-mail address of the creator at creation time.' }) created_by_email: string | null;
  @Sql(timestamp) @Field(() => Date, { description: 'When the evaluation was created and queued.' }) queued_at: Date;
  @Sql(timestamp) @Field(() => Date, { nullable: true, description: 'When an item first moved; null before.' }) started_at: Date | null;
  @Sql(timestamp) @Field(() => Date, { nullable: true, description: 'When the job ended (completed or cancelled); null before, and cleared by a retry.' }) completed_at: Date | null;
  @Sql(timestamp) @Field(() => Date, { nullable: true, description: 'When cancellation was requested; null if never.' }) cancel_requested_at: Date | null;
  @Sql() @Field(() => JSONObjectScalar, { nullable: true, description: '`{rows: <count>}` when dataset rows were given; null otherwise.' }) dataset_ref: Record<string, unknown> | null;
  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: 'The run configuration recorded at creation (model, judge model, engine, concurrency, secret ids, task config…); never secret values.' })
  @MaxBytes(MAX_RUN_CONFIGURATION_BYTES)
  config_json: Record<string, unknown> | null;
  @Sql() @Field(() => JSONObjectScalar, { nullable: true, description: 'A free-form summary of the run; null when none is recorded.' }) summary_json: Record<string, unknown> | null;
  @Sql() @Field(() => Int, { description: 'Number of items.' }) dataset_size: number;
  @Sql() @Field(() => Int, { description: 'The concurrency asked for (1 to 100, default 1).' }) requested_concurrency: number;
  @Sql() @Field(() => Int, { description: 'min(concurrency, items).' }) effective_concurrency: number;
  @Sql() @Field(() => Int, { nullable: true, description: 'Timeout per task in seconds; null when none was given.' }) task_timeout_sec: number | null;
  @Sql(derived((row) => itemCounts(row as never))) @Field(() => EvaluationControlPlaneSummary, { description: 'The live number of items in each state.' }) item_counts: EvaluationControlPlaneSummary;
  @Sql(derived((row) => toAnalytics(row as never)))
  @Field(() => EvaluationSummaryResponse, { nullable: true, description: 'Set when every item is terminal (job completed).' })
  analytics: EvaluationSummaryResponse | null;
  @Sql(derived((row) => row.skipped_members ?? []))
  @Field(() => [EvaluationSkippedMember], { description: `Task names and task-set members left out at creation: the first ${EMBEDDED_LIST_CAP} in a list, all of them in a single read.` })
  @MaxItems(EMBEDDED_LIST_CAP)
  skipped_members: EvaluationSkippedMember[];
  @Sql(derived((row) => row.skipped_members_count ?? (row.skipped_members as unknown[] | null)?.length ?? 0)) @Field(() => Int, { description: 'How many members were skipped at creation (all of them, in a list too).' }) skipped_members_count: number;
  @Sql(derived((row) => row.task_set_ref)) @Field(() => TaskSetReference, { nullable: true, description: 'The task set the evaluation was created from, as it was then; null when none.' }) task_set_ref: TaskSetReference | null;

  /** Resolved by a field resolver (userById loader). */
  created_by_user?: UserIdentityResponse | null;
  /** Not exposed: navigation to the task set. */
  task_set_id: string | null;
}

@ObjectType('EvaluationListResponse', { description: 'One page of evaluations, newest first.' })
export class EvaluationListResponse {
  @Field(() => [EvaluationJobResponse], { description: 'The evaluations of this page.' }) @PageItems() items: EvaluationJobResponse[];
  @Field(() => Int, { description: 'Evaluations matching the filters.' }) total: number;
  @Field(() => Int, { description: 'The page number, from 1.' }) page: number;
  @Field(() => Int, { description: 'Evaluations per page.' }) page_size: number;
}

@ObjectType('EvaluationItemResponse', { description: 'One item of an evaluation: a task, or a dataset row.' })
export class EvaluationItemResponse {
  @Sql() @Field(() => UUIDScalar, { description: "The item's id." }) id: string;
  @Sql() @Field(() => UUIDScalar, { description: 'Id of the evaluation the item belongs to.' }) evaluation_id: string;
  @Sql() @Field(() => String, { description: 'The task name, or `dataset[<index>]` for a dataset row.' }) task_name: string;
  @Sql() @Field(() => String, { nullable: true, description: 'The resolved task version; null for a dataset row.' }) task_version: string | null;
  @Sql() @Field(() => EvaluationItemStatus, { description: "The item's state." }) status: EvaluationItemStatus;
  @Sql() @Field(() => Int, { description: '1 at creation, +1 per retry.' }) attempt: number;
  @Sql(timestamp) @Field(() => Date, { description: 'When the item was created (with its evaluation).' }) created_at: Date;
  @Sql(timestamp) @Field(() => Date, { nullable: true, description: 'When the current attempt first moved to a non-terminal state; null before (cleared by a retry).' }) started_at: Date | null;
  @Sql(timestamp) @Field(() => Date, { nullable: true, description: 'When the item reached a terminal state; null before (cleared by a retry).' }) completed_at: Date | null;
  @Sql() @Field(() => String, { nullable: true, description: 'Why the item failed or errored; null otherwise (cleared by a retry).' }) error: string | null;

  /** Not exposed: navigation to the task. */
  task_id: string | null;
  /** Not exposed: the evaluation's organization, the reader of the item's task (its verification secrets). */
  organization_id: string;
}

@ObjectType('EvaluationItemListResponse', { description: "One page of an evaluation's items, in creation order." })
export class EvaluationItemListResponse {
  @Field(() => [EvaluationItemResponse], { description: 'The items of this page.' }) @PageItems() items: EvaluationItemResponse[];
}

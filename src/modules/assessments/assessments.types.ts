import { TOP_VALUES } from '../../core/pagination';
import { derived, expression, fromRow, Sql, SqlStored, timestamp } from '../../core/graphql-sql/sql-fields';
import { partsJson } from './assessments.graphql-sql';
import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxBytes, MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { MAX_FREE_FORM_JSON_BYTES } from '../../core/validation/json-bytes';
import { JSONObjectScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { MAX_ATTACK_MANIFEST_BYTES, MAX_SPAN_LIST_ITEMS } from './assessments.limits';

export enum AssessmentStatusEnum {
  pending = 'pending',
  running = 'running',
  completed = 'completed',
  failed = 'failed',
}
registerEnumType(AssessmentStatusEnum, {
  name: 'AssessmentStatus',
  description: 'pending → running (first ingest) → completed | failed.',
  valuesConfig: {
    pending: { description: 'Created; no attack ingested yet.' },
    running: { description: 'Under way: set by the first attack ingest (or an update).' },
    completed: { description: 'Finished (sets completed_at; final).' },
    failed: { description: 'Failed (sets completed_at; final).' },
  },
});

/** The analytics snapshot, as both the assessment and its analytics reply describe it (assessments.sql.ts RECOMPUTE_SQL). */
const ANALYTICS_SNAPSHOT = `Totals (total_attacks, total_jailbreaks, jailbreak_share, mean_asr, best_score) and, by category and by goal category, attacks, mean_asr, jailbreaks and best_score: the ${TOP_VALUES} categories with the most attacks (ties by name); null before the first ingest.`;

/** A member of the sandbox_detail jsonb as text, empty when missing. */
const TEXT = (key: string) => derived((detail) => String(detail[key] ?? ''));

@ObjectType('SandboxSummary', { description: 'The sandbox an assessment ran in.' })
export class SandboxSummary {
  @Sql(TEXT('provider'))
  @Field(() => String, { description: 'The sandbox provider.' })
  provider: string;

  @Sql(TEXT('provider_sandbox_id'))
  @Field(() => String, { description: "The sandbox's id at its provider." })
  provider_sandbox_id: string;

  @Sql(TEXT('state'))
  @Field(() => String, { description: "The sandbox's state, as reported." })
  state: string;

  @Sql(derived((detail) => (detail.total_runtime_seconds == null ? null : Number(detail.total_runtime_seconds))))
  @Field(() => Float, { nullable: true, description: 'How long the sandbox ran, in seconds; null when not reported.' })
  total_runtime_seconds: number | null;
}

@ObjectType('AssessmentResponse', { description: 'A red-team assessment (spec AssessmentResponse).' })
export class AssessmentResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The assessment's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: "The assessment's name." })
  name: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The assessment's description; null when none." })
  description: string | null;

  @Sql()
  @Field(() => AssessmentStatusEnum, { description: "The assessment's status." })
  status: AssessmentStatusEnum;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the organization the assessment belongs to.' })
  organization_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the workspace the assessment belongs to.' })
  workspace_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the project the assessment belongs to.' })
  project_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'The creating user.' })
  user_id: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the linked session of the workspace; null when none.' })
  session_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, as given at creation (not checked); null when none.' })
  runtime_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the sandbox the assessment ran in; null when none is recorded.' })
  sandbox_id: string | null;

  @Sql()
  @Field(() => [JSONObjectScalar], { nullable: true, description: 'The planned attacks, as given at creation (a list of objects); null when none.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  @MaxBytes(MAX_ATTACK_MANIFEST_BYTES)
  attack_manifest: Record<string, unknown>[] | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: "The attacker's configuration, as given at creation; null when none." })
  @MaxBytes(MAX_FREE_FORM_JSON_BYTES)
  attacker_config: Record<string, unknown> | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: "The target's configuration, as given at creation; null when none." })
  @MaxBytes(MAX_FREE_FORM_JSON_BYTES)
  target_config: Record<string, unknown> | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The model that generates the attacks; null when not given.' })
  attacker_model: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The model that judges the responses; null when not given.' })
  judge_model: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The model under attack; null when not given.' })
  target_model: string | null;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Mean asr over the ingested attacks; null before the first ingest.' })
  overall_asr: number | null;

  @Sql()
  @Field(() => Float, { nullable: true, description: '0–10: 10 × (0.7 × overall_asr + 0.3 × jailbreak share); null before the first ingest.' })
  risk_score: number | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: ANALYTICS_SNAPSHOT })
  analytics_snapshot: Record<string, unknown> | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Id of the workflow run executing the assessment, as given; null when none.' })
  workflow_run_id: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The workflow script, as given; null when none.' })
  workflow_script: string | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'Set by the first ingest (or a move to running).' })
  started_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'Set when the status becomes completed or failed.' })
  completed_at: Date | null;

  @Sql(derived((row) => (row.sandbox_detail ? fromRow(SandboxSummary, row.sandbox_detail) : null)))
  @Field(() => SandboxSummary, { nullable: true, description: 'The sandbox the assessment ran in (set by an update); null when none.' })
  sandbox_detail: SandboxSummary | null;

  /** Resolved by a field resolver (userById loader). */
  created_by_user?: UserIdentityResponse | null;
}

@ObjectType('AssessmentListResponse', { description: 'One page of assessments, newest first.' })
export class AssessmentListResponse {
  @Field(() => [AssessmentResponse], { description: 'The assessments of this page.' })
  @PageItems()
  items: AssessmentResponse[];

  @Field(() => Int, { description: 'The page number, from 1.' })
  page: number;

  @Field(() => Int, { description: 'Assessments per page.' })
  page_size: number;

  @Field(() => Int, { description: 'Assessments matching the filter.' })
  total: number;
}

@ObjectType('MediaSource', { description: 'Where the bytes of a message part live (referenced, never inlined).' })
export class MediaSource {
  @Field(() => String, { description: 'artifact, url or file_id (default artifact).' })
  ref: string;

  @Field(() => String, { nullable: true, description: 'Object id of the artifact holding the bytes (ref `artifact`); null otherwise.' })
  artifact_oid: string | null;

  @Field(() => TokenCountScalar, { nullable: true, description: 'Bytes, up to 2^53 - 1.' })
  byte_size: number | null;

  @Field(() => String, { nullable: true, description: 'The detail level asked for the media, as given; null when none.' })
  detail: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the file holding the bytes (ref `file_id`); null otherwise.' })
  file_id: string | null;

  @Field(() => String, { nullable: true, description: "The media's file name; null when not given." })
  filename: string | null;

  @Field(() => String, { nullable: true, description: "The media's MIME type; null when not given." })
  media_type: string | null;

  @Field(() => String, { nullable: true, description: 'Where the bytes are (ref `url`); never a `data:`, `javascript:` or `vbscript:` URL (refused since 2026-11-28; rows stored before may hold one); null otherwise.' })
  url: string | null;
}

@ObjectType('MessagePart', { description: 'One ordered part of a multimodal message.' })
export class MessagePart {
  @Field(() => String, { description: 'What the part holds (its modality).' })
  kind: string;

  @Field(() => String, { nullable: true, description: "The part's text; null when it has none." })
  text: string | null;

  @Field(() => String, { nullable: true, description: "A caption of the part's media; null when none." })
  caption: string | null;

  @Field(() => String, { nullable: true, description: 'The transform that produced the part; null when none.' })
  transform: string | null;

  @Field(() => String, { nullable: true, description: "The part's variant; null when none." })
  variant: string | null;

  @Field(() => MediaSource, { nullable: true, description: "Where the part's media bytes live; null for a part without media." })
  source: MediaSource | null;
}

@ObjectType('AttackSpanResponse', { description: 'Per-attack data from traces, every default filled.' })
@SqlStored({ text: 'reply_json', version: 'reply_version' })
export class AttackSpanResponse {
  @Sql()
  @Field(() => String, { description: 'Name of the attack.' })
  attack_name: string;

  @Sql()
  @Field(() => String, { description: 'The goal the attack pursued.' })
  goal: string;

  @Sql()
  @Field(() => String, { description: 'Category of the goal.' })
  goal_category: string;

  @Sql()
  @Field(() => Float, { description: 'Attack success rate, a fraction from 0 to 1 (default 0).' })
  asr: number;

  @Sql()
  @Field(() => String, { description: 'The model that generated the attack (empty when not given).' })
  attacker_model: string;

  @Sql()
  @Field(() => String, { description: 'The model under attack (empty when not given).' })
  target_model: string;

  @Sql()
  @Field(() => String, { description: 'The model that scored the responses (empty when not given).' })
  evaluator_model: string;

  @Sql()
  @Field(() => String, { description: 'The best-scoring attack prompt (empty when not given).' })
  best_candidate: string;

  @Sql(expression((s) => partsJson(`${s}.best_candidate_parts`)))
  @Field(() => [MessagePart], { nullable: true, description: 'The best candidate as ordered multimodal parts; null when not given.' })
  @MaxItems(() => MAX_SPAN_LIST_ITEMS)
  best_candidate_parts: MessagePart[] | null;

  @Sql()
  @Field(() => String, { description: "The target's response to the best candidate (empty when not given)." })
  best_response: string;

  @Sql(expression((s) => partsJson(`${s}.best_response_parts`)))
  @Field(() => [MessagePart], { nullable: true, description: 'The best response as ordered multimodal parts; null when not given.' })
  @MaxItems(() => MAX_SPAN_LIST_ITEMS)
  best_response_parts: MessagePart[] | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Modality → score.' })
  best_modality_scores: Record<string, number> | null;

  @Sql()
  @Field(() => Float, { description: 'Score of the best candidate (default 0).' })
  best_score: number;

  @Sql()
  @Field(() => String, { description: "The attack's category (empty when not given)." })
  category: string;

  @Sql()
  @Field(() => String, { description: "The attack's sub-category (empty when not given)." })
  sub_category: string;

  @Sql()
  @Field(() => Float, { description: 'Execution time in seconds (default 0).' })
  execution_time_s: number;

  @Sql()
  @Field(() => Int, { description: 'Trials that finished (default 0).' })
  finished_trials: number;

  @Sql()
  @Field(() => Int, { description: 'Trials of the attack (default 0).' })
  total_trials: number;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the attack achieved a jailbreak (default false).' })
  is_jailbreak: boolean;

  @Sql()
  @Field(() => String, { description: "Id of the attack's span (empty when not given)." })
  span_id: string;

  @Sql()
  @Field(() => String, { description: "Id of the attack's trace (empty when not given)." })
  trace_id: string;

  @Sql(expression((s) => `coalesce(${s}.transforms, '[]'::jsonb)`))
  @Field(() => [String], { description: 'Names of the transforms the attack applied (empty when none).' })
  @MaxItems(() => MAX_SPAN_LIST_ITEMS)
  transforms: string[];
}

@ObjectType('AttackIngestResponse', { description: 'Reply of an attack-span ingest: how many were stored and the recomputed assessment.' })
export class AttackIngestResponse {
  @Field(() => Int, { description: 'Number of attack spans stored.' })
  ingested: number;

  @Field(() => AssessmentResponse, { description: 'The assessment with its recomputed analytics.' })
  assessment: AssessmentResponse;
}

@ObjectType('AssessmentAnalyticsResponse', { description: "An assessment's analytics." })
export class AssessmentAnalyticsResponse {
  @Sql()
  @Field(() => Float, { nullable: true, description: '0–10: 10 × (0.7 × overall_asr + 0.3 × jailbreak share); null before the first ingest.' })
  risk_score: number | null;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Mean asr over the ingested attacks; null before the first ingest.' })
  overall_asr: number | null;

  @Sql()
  @Field(() => Int, { description: 'Number of ingested attacks.' })
  total_attacks: number;

  @Sql()
  @Field(() => Float, { description: 'Sum of total_trials over the attacks.' })
  total_trials: number;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: ANALYTICS_SNAPSHOT })
  analytics_snapshot: Record<string, unknown> | null;
}

@ObjectType('AssessmentTraceStats', { description: 'Statistics over the ingested attack spans, computed in SQL.' })
export class AssessmentTraceStats {
  // Float: sums of finished_trials (up to 1,000,000 a record) pass 2^31 after a few ingests; the value is always a whole number.
  @Field(() => Float, { description: 'attack_spans + trial_spans + transform_spans (a whole number).' })
  total_spans: number;

  @Field(() => Int, { description: 'Number of ingested attack spans.' })
  attack_spans: number;

  @Field(() => Float, { description: 'Sum of finished_trials (a whole number).' })
  trial_spans: number;

  @Field(() => Int, { description: 'Distinct transforms used.' })
  transform_spans: number;

  @Field(() => Int, { description: 'Attacks that achieved a jailbreak.' })
  total_jailbreaks: number;

  @Field(() => Float, { nullable: true, description: 'Highest best_score over the attacks; null without attacks.' })
  max_score: number | null;

  @Field(() => Float, { nullable: true, description: 'Mean best_score over the attacks; null without attacks.' })
  avg_score: number | null;

  @Field(() => Float, { description: "Sum of the attacks' execution times, in seconds." })
  total_duration_s: number;

  @Field(() => Float, { nullable: true, description: 'Total execution time / finished trials, in ms; null without finished trials.' })
  avg_trial_time_ms: number | null;

  @Field(() => [String], { description: 'Distinct attack names, sorted.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  attack_names: string[];
}

@ObjectType('AssessmentDeletedResponse', { description: 'The result of deleting an assessment.' })
export class AssessmentDeletedResponse {
  @Field(() => UUIDScalar, { description: "The deleted assessment's id." })
  id: string;

  @Field(() => Boolean, { description: 'Always true.' })
  deleted: boolean;
}

import { derived, expression, fromRow, Sql, SqlStored, timestamp } from '../../core/graphql-sql/sql-fields';
import { storedSpanText } from './assessments.sql';
import { partsJson } from './assessments.graphql-sql';
import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { JSONObjectScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { MAX_SPAN_LIST_ITEMS } from './assessments.inputs';

export enum AssessmentStatusEnum {
  pending = 'pending',
  running = 'running',
  completed = 'completed',
  failed = 'failed',
}
registerEnumType(AssessmentStatusEnum, { name: 'AssessmentStatus', description: 'pending → running (first ingest) → completed | failed.' });

/** A member of the sandbox_detail jsonb as text, empty when missing. */
const TEXT = (key: string) => derived((detail) => String(detail[key] ?? ''));

@ObjectType('SandboxSummary', { description: 'The sandbox an assessment ran in.' })
export class SandboxSummary {
  @Sql(TEXT('provider'))
  @Field(() => String)
  provider: string;

  @Sql(TEXT('provider_sandbox_id'))
  @Field(() => String)
  provider_sandbox_id: string;

  @Sql(TEXT('state'))
  @Field(() => String)
  state: string;

  @Sql(derived((detail) => (detail.total_runtime_seconds == null ? null : Number(detail.total_runtime_seconds))))
  @Field(() => Float, { nullable: true })
  total_runtime_seconds: number | null;
}

@ObjectType('AssessmentResponse', { description: 'A red-team assessment (spec AssessmentResponse).' })
export class AssessmentResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String)
  name: string;

  @Sql()
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql()
  @Field(() => AssessmentStatusEnum)
  status: AssessmentStatusEnum;

  @Sql()
  @Field(() => UUIDScalar)
  organization_id: string;

  @Sql()
  @Field(() => UUIDScalar)
  workspace_id: string;

  @Sql()
  @Field(() => UUIDScalar)
  project_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'The creating user.' })
  user_id: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  session_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  runtime_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  sandbox_id: string | null;

  @Sql()
  @Field(() => [JSONObjectScalar], { nullable: true })
  @MaxItems(NOMINAL_MAX_ITEMS)
  attack_manifest: Record<string, unknown>[] | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true })
  attacker_config: Record<string, unknown> | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true })
  target_config: Record<string, unknown> | null;

  @Sql()
  @Field(() => String, { nullable: true })
  attacker_model: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  judge_model: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  target_model: string | null;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Mean asr over the ingested attacks; null before the first ingest.' })
  overall_asr: number | null;

  @Sql()
  @Field(() => Float, { nullable: true, description: '0–10: 10 × (0.7 × overall_asr + 0.3 × jailbreak share); null before the first ingest.' })
  risk_score: number | null;

  @Sql()
  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: 'Per category and per goal category: attacks, mean_asr, jailbreaks, best_score (plus totals); null before the first ingest.',
  })
  analytics_snapshot: Record<string, unknown> | null;

  @Sql()
  @Field(() => String, { nullable: true })
  workflow_run_id: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
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
  @Field(() => SandboxSummary, { nullable: true })
  sandbox_detail: SandboxSummary | null;

  /** Resolved by a field resolver (userById loader). */
  created_by_user?: UserIdentityResponse | null;
}

@ObjectType('AssessmentListResponse')
export class AssessmentListResponse {
  @Field(() => [AssessmentResponse])
  @PageItems()
  items: AssessmentResponse[];

  @Field(() => Int)
  page: number;

  @Field(() => Int)
  page_size: number;

  @Field(() => Int)
  total: number;
}

@ObjectType('MediaSource', { description: 'Where the bytes of a message part live (referenced, never inlined).' })
export class MediaSource {
  @Field(() => String, { description: 'artifact, url or file_id (default artifact).' })
  ref: string;

  @Field(() => String, { nullable: true })
  artifact_oid: string | null;

  @Field(() => TokenCountScalar, { nullable: true, description: 'Bytes, up to 2^53 - 1.' })
  byte_size: number | null;

  @Field(() => String, { nullable: true })
  detail: string | null;

  @Field(() => String, { nullable: true })
  file_id: string | null;

  @Field(() => String, { nullable: true })
  filename: string | null;

  @Field(() => String, { nullable: true })
  media_type: string | null;

  @Field(() => String, { nullable: true })
  url: string | null;
}

@ObjectType('MessagePart', { description: 'One ordered part of a multimodal message.' })
export class MessagePart {
  @Field(() => String)
  kind: string;

  @Field(() => String, { nullable: true })
  text: string | null;

  @Field(() => String, { nullable: true })
  caption: string | null;

  @Field(() => String, { nullable: true })
  transform: string | null;

  @Field(() => String, { nullable: true })
  variant: string | null;

  @Field(() => MediaSource, { nullable: true })
  source: MediaSource | null;
}

@ObjectType('AttackSpanResponse', { description: 'Per-attack data from traces, every default filled.' })
@SqlStored({ text: (s) => storedSpanText(s) })
export class AttackSpanResponse {
  @Sql()
  @Field(() => String)
  attack_name: string;

  @Sql()
  @Field(() => String)
  goal: string;

  @Sql()
  @Field(() => String)
  goal_category: string;

  @Sql()
  @Field(() => Float)
  asr: number;

  @Sql()
  @Field(() => String)
  attacker_model: string;

  @Sql()
  @Field(() => String)
  target_model: string;

  @Sql()
  @Field(() => String)
  evaluator_model: string;

  @Sql()
  @Field(() => String)
  best_candidate: string;

  @Sql(expression((s) => partsJson(`${s}.best_candidate_parts`)))
  @Field(() => [MessagePart], { nullable: true })
  @MaxItems(() => MAX_SPAN_LIST_ITEMS)
  best_candidate_parts: MessagePart[] | null;

  @Sql()
  @Field(() => String)
  best_response: string;

  @Sql(expression((s) => partsJson(`${s}.best_response_parts`)))
  @Field(() => [MessagePart], { nullable: true })
  @MaxItems(() => MAX_SPAN_LIST_ITEMS)
  best_response_parts: MessagePart[] | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Modality → score.' })
  best_modality_scores: Record<string, number> | null;

  @Sql()
  @Field(() => Float)
  best_score: number;

  @Sql()
  @Field(() => String)
  category: string;

  @Sql()
  @Field(() => String)
  sub_category: string;

  @Sql()
  @Field(() => Float)
  execution_time_s: number;

  @Sql()
  @Field(() => Int)
  finished_trials: number;

  @Sql()
  @Field(() => Int)
  total_trials: number;

  @Sql()
  @Field(() => Boolean)
  is_jailbreak: boolean;

  @Sql()
  @Field(() => String)
  span_id: string;

  @Sql()
  @Field(() => String)
  trace_id: string;

  @Sql(expression((s) => `coalesce(${s}.transforms, '[]'::jsonb)`))
  @Field(() => [String])
  @MaxItems(() => MAX_SPAN_LIST_ITEMS)
  transforms: string[];
}

@ObjectType('AttackIngestResponse', { description: 'Reply of an attack-span ingest: how many were stored and the recomputed assessment.' })
export class AttackIngestResponse {
  @Field(() => Int)
  ingested: number;

  @Field(() => AssessmentResponse)
  assessment: AssessmentResponse;
}

@ObjectType('AssessmentAnalyticsResponse')
export class AssessmentAnalyticsResponse {
  @Sql()
  @Field(() => Float, { nullable: true })
  risk_score: number | null;

  @Sql()
  @Field(() => Float, { nullable: true })
  overall_asr: number | null;

  @Sql()
  @Field(() => Int)
  total_attacks: number;

  @Sql()
  @Field(() => Float, { description: 'Sum of total_trials over the attacks.' })
  total_trials: number;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true })
  analytics_snapshot: Record<string, unknown> | null;
}

@ObjectType('AssessmentTraceStats', { description: 'Statistics over the ingested attack spans, computed in SQL.' })
export class AssessmentTraceStats {
  // Float: sums of finished_trials (up to 1,000,000 a record) pass 2^31 after a few ingests; the value is always a whole number.
  @Field(() => Float, { description: 'attack_spans + trial_spans + transform_spans (a whole number).' })
  total_spans: number;

  @Field(() => Int)
  attack_spans: number;

  @Field(() => Float, { description: 'Sum of finished_trials (a whole number).' })
  trial_spans: number;

  @Field(() => Int, { description: 'Distinct transforms used.' })
  transform_spans: number;

  @Field(() => Int)
  total_jailbreaks: number;

  @Field(() => Float, { nullable: true })
  max_score: number | null;

  @Field(() => Float, { nullable: true })
  avg_score: number | null;

  @Field(() => Float)
  total_duration_s: number;

  @Field(() => Float, { nullable: true, description: 'Total execution time / finished trials, in ms; null without finished trials.' })
  avg_trial_time_ms: number | null;

  @Field(() => [String], { description: 'Distinct attack names, sorted.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  attack_names: string[];
}

@ObjectType('AssessmentDeletedResponse')
export class AssessmentDeletedResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => Boolean)
  deleted: boolean;
}

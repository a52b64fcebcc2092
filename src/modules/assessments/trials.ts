import { MaxLength } from 'class-validator';
import { Arg, Args, ArgsType, Ctx, Field, Float, ObjectType, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { MaxItems, Rest } from '../../core/graphql-decorators';
import { PageSizeArg, type PageSize } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { rowsWithinReply } from '../../core/reply-budget';
import { getAssessment } from './assessments.service';
import { ATTACK_RANGES } from './assessments.limits';
import { airtAttr, bool, num, txt } from './assessments.sql';

@ObjectType('AttackTrialResponse', { description: "One trial of an attack: a `trial` span under the attack's `study` span (decisions §14, §15)." })
export class AttackTrialResponse {
  @Field(() => String, { description: "The trial's id: its `dreadnode.airt.trial_id` attribute, else its span id." })
  trial_id: string;

  @Field(() => String, { description: "The attack's name (its study span's `attack_name`)." })
  attack_name: string;

  @Field(() => String, { description: "The attack's goal." })
  goal: string;

  @Field(() => Float, { description: "The judge's score (`judge_score`, 0 when absent)." })
  score: number;

  @Field(() => Boolean, { description: 'Whether the trial broke the target (`is_jailbreak`: true, 1 or "1").' })
  is_jailbreak: boolean;

  @Field(() => String, { description: 'The candidate prompt the attacker sent.' })
  candidate: string;

  @Field(() => String, { description: "The target's response." })
  response: string;

  @Field(() => [String], { description: 'Transforms applied to the candidate.' })
  @MaxItems(100)
  transforms: string[];

  @Field(() => Float, { description: '`execution_time_ms`, else the span duration in milliseconds.' })
  execution_time_ms: number;

  @Field(() => String, { description: "The trial's span id." })
  span_id: string;

  @Field(() => String, { description: "The trial's trace id." })
  trace_id: string;

  @Field(() => Date, { description: 'When the trial started.' })
  created_at: Date;
}

/** Trials one read returns. */
const TRIAL_PAGE: PageSize = { max: 1000, fallback: 100 };

@ArgsType()
export class TrialListArgs {
  @Field(() => String, { nullable: true, description: 'Only trials of this attack.' })
  @MaxLength(255)
  attack_name?: string | null;

  @Field(() => Float, { nullable: true, description: 'Only trials scored at least this.' })
  min_score?: number | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'Only trials that broke the target.' })
  jailbreaks_only?: boolean | null;

  @PageSizeArg(TRIAL_PAGE, 'Trials to return')
  limit?: number | null;
}

const text = (v: string) => `coalesce(${txt(v)}, '')`;
/** A trial's execution time in milliseconds: the attack's execution_time_s range. */
const TRIAL_MS = [ATTACK_RANGES.execution_time_s[0] * 1000, ATTACK_RANGES.execution_time_s[1] * 1000] as const;
const boolOrFalse = (v: string) => `coalesce(${bool(v)}, false)`;

/** The trials of an assessment's study spans, in start order, filtered in SQL. */
const TRIALS_SQL = `
  SELECT * FROM (
    -- One row per trial span, even if it (or its study) was stored twice under two start times.
    SELECT DISTINCT ON (c.trace_id, c.span_id) coalesce(nullif(${text(airtAttr('c', 'trial_id'))}, ''), c.span_id) AS trial_id,
           left(coalesce(nullif(${text(airtAttr('st', 'attack_name'))}, ''), st.name), 255) AS attack_name,
           ${text(airtAttr('st', 'goal'))} AS goal,
           coalesce(${num(airtAttr('c', 'judge_score'), ATTACK_RANGES.best_score)}, 0) AS score,
           ${boolOrFalse(airtAttr('c', 'is_jailbreak'))} AS is_jailbreak,
           ${text(airtAttr('c', 'candidate'))} AS candidate,
           ${text(airtAttr('c', 'response'))} AS response,
           CASE WHEN jsonb_typeof(${airtAttr('c', 'transforms')}) = 'array'
                THEN ARRAY(SELECT x #>> '{}' FROM jsonb_array_elements(${airtAttr('c', 'transforms')}) AS x WHERE jsonb_typeof(x) <> 'null') ELSE '{}'::text[] END AS transforms,
           coalesce(${num(airtAttr('c', 'execution_time_ms'), TRIAL_MS)}, least(c.duration_ms, ${TRIAL_MS[1]})) AS execution_time_ms,
           c.span_id, c.trace_id, c.start_time AS created_at
      FROM spans st
      JOIN spans c ON c.organization_id = st.organization_id AND c.workspace_id = st.workspace_id AND c.trace_id = st.trace_id
                  AND c.parent_span_id = st.span_id AND c.span_type = 'trial'
     WHERE st.assessment_id = $assessment_id AND st.workspace_id = $workspace_id AND st.span_type = 'study'
     ORDER BY c.trace_id, c.span_id, c.start_time DESC) t
   WHERE ($attack_name::text IS NULL OR t.attack_name = $attack_name)
     AND ($min_score::float8 IS NULL OR t.score >= $min_score)
     AND (NOT $jailbreaks_only::boolean OR t.is_jailbreak)
   ORDER BY t.created_at, t.span_id
   LIMIT $limit`;

/**
 * The trials with their sizes, the text each carries (candidate and response
 * may each be an attribute's full length), so 1,000 of them are read within
 * what the request may still load for its reply (core/reply-budget.ts), cut
 * by PostgreSQL, not built whole in node.
 */
const TRIAL_ROWS = `
  SELECT r.*, octet_length(r.candidate) + octet_length(r.response) + octet_length(r.goal) + octet_length(r.attack_name) + octet_length(r.trial_id)
              + coalesce(octet_length(array_to_string(r.transforms, '')), 0) AS size
    FROM (${TRIALS_SQL}) r`;

@Resolver(() => AttackTrialResponse)
export class AssessmentTrialsResolver {
  @Query(() => [AttackTrialResponse], { description: "An assessment's trials (trial spans of its attacks), oldest first; a bare array on REST." })
  @Rest('GET', '/org/:org/ws/:workspace/airt/assessments/:assessment_id/traces/trials', { tags: ['airt'] })
  @MaxItems(1000)
  async assessment_trials(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: 'The assessment.' }) assessmentId: string,
    @Args(() => TrialListArgs) args: TrialListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<AttackTrialResponse[]> {
    const scope = await resolveWorkspace(ctx, org, workspace);
    const assessment = await getAssessment(ctx, org, workspace, assessmentId);
    return rowsWithinReply<AttackTrialResponse>(ctx, {
      rows: TRIAL_ROWS,
      order: ['created_at', 'span_id'],
      bind: {
        assessment_id: assessment.id,
        workspace_id: scope.workspace.id,
        attack_name: args.attack_name ?? null,
        min_score: args.min_score ?? null,
        jailbreaks_only: args.jailbreaks_only ?? false,
        limit: args.limit ?? TRIAL_PAGE.fallback,
      },
    });
  }
}

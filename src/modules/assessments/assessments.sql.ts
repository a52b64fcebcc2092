import { TOP_VALUES } from '../../core/pagination';
import { rowSelect, storedReplyJson, storedReplyVersion } from '../../core/graphql-sql/sql-fields';
import { ATTACK_RANGES } from './assessments.limits';
import { AttackSpanResponse } from './assessments.types';
/**
 * The SQL of attack-span ingest and analytics. Every number shown by an
 * assessment is computed by PostgreSQL from its spans, inside the ingest
 * transaction that holds the assessment's row lock, so concurrent ingests
 * into one assessment serialise and none is lost.
 */

/** Columns of one attack record as sent to PostgreSQL (defaults applied in Node, types checked before). */
const RECORD_COLUMNS = `
  attack_name text, goal text, goal_category text, asr double precision,
  attacker_model text, target_model text, evaluator_model text,
  best_candidate text, best_candidate_parts jsonb, best_response text, best_response_parts jsonb,
  best_modality_scores jsonb, best_score double precision, category text, sub_category text,
  execution_time_s double precision, finished_trials integer, total_trials integer,
  is_jailbreak boolean, span_id text, trace_id text, transforms jsonb`;

const SPAN_COLUMNS = `attack_name, goal, goal_category, asr, attacker_model, target_model, evaluator_model,
  best_candidate, best_candidate_parts, best_response, best_response_parts, best_modality_scores, best_score,
  category, sub_category, execution_time_s, finished_trials, total_trials, is_jailbreak, span_id, trace_id, transforms`;

/**
 * What attack span `alias` counts against the reply budget
 * (core/reply-budget.ts): its stored reply's length (read from the stored
 * value's header, without reading the text), or, while it has none, the
 * length of its texts (goal, best candidate and response, each up to an
 * attribute's length when derived from spans).
 */
export const attackBytes = (alias: string) =>
  `coalesce(octet_length(${alias}.reply_json), octet_length(concat(${alias}.goal, ${alias}.best_candidate, ${alias}.best_response, ${alias}.best_candidate_parts::text, ${alias}.best_response_parts::text)))`;

/**
 * What assessment row `alias` counts against the reply budget: its text
 * (every column, its script, configurations and manifest above all), a
 * little more than its JSON reply.
 */
export const assessmentBytes = (alias: string) => `octet_length(${alias}::text)`;

/** A span row as the GraphQL resolvers read it: its keys and AttackSpanResponse's fields as they declare them. */
export const spanRowColumns = (alias: string) => `${alias}.assessment_id, ${alias}.seq, ${alias}.organization_id, ${alias}.workspace_id, ${rowSelect(AttackSpanResponse, alias)}`;

/** One INSERT … SELECT for the whole batch: the records arrive as one jsonb array, in order; each span's reply text is built once here. */
export const insertSpansSql = () => `
  INSERT INTO airt_attack_spans (assessment_id, seq, organization_id, workspace_id, ${SPAN_COLUMNS}, reply_json, reply_version)
  SELECT $assessment_id::uuid, $base_seq::int + e.ord::int, $organization_id::uuid, $workspace_id::uuid, ${SPAN_COLUMNS.split(',').map((column) => `r.${column.trim()}`).join(', ')},
         ${storedReplyJson(AttackSpanResponse, 'r')}, ${storedReplyVersion(AttackSpanResponse)}
    FROM jsonb_array_elements($attacks::jsonb) WITH ORDINALITY AS e(doc, ord)
    CROSS JOIN LATERAL jsonb_to_record(e.doc) AS r(${RECORD_COLUMNS})`;

/** Decimal text the SDK may send for a number: at most 64 digits each side of the point, an exponent of at most 3 digits. */
const NUMBER_TEXT = '^\\s*-?[0-9]{1,64}(\\.[0-9]{1,64})?([eE][-+]?[0-9]{1,3})?\\s*$';
/**
 * A JSON attribute value read as a number, whichever way the SDK encoded it
 * (decisions §15), clamped to `[min, max]`; NULL when it is not a number.
 * Read as numeric first, so no text the pattern admits (1e999, 1e-999) can
 * overflow double precision; rounded to 15 decimal places, so none
 * underflows it. Shared by the trials route.
 */
export const num = (v: string, [min, max]: readonly [number, number]) => {
  const value = `(CASE jsonb_typeof(${v}) WHEN 'number' THEN (${v})::numeric WHEN 'string' THEN CASE WHEN (${v} #>> '{}') ~ '${NUMBER_TEXT}' THEN (${v} #>> '{}')::numeric END END)`;
  return `(CASE WHEN ${value} IS NOT NULL THEN round(least(${max}, greatest(${min}, ${value})), 15)::float8 END)`;
};
export const bool = (v: string) =>
  `(CASE jsonb_typeof(${v}) WHEN 'boolean' THEN (${v})::boolean WHEN 'number' THEN (${v})::numeric <> 0 WHEN 'string' THEN lower(${v} #>> '{}') IN ('1', 'true', 'yes') END)`;
export const txt = (v: string) => `(CASE jsonb_typeof(${v}) WHEN 'string' THEN ${v} #>> '{}' WHEN 'null' THEN NULL ELSE (${v})::text END)`;
/** A `dreadnode.airt.*` attribute of the span aliased `alias`. */
export const airtAttr = (alias: string, name: string) => `${alias}.attributes -> 'dreadnode.airt.${name}'`;
const airt = (name: string) => airtAttr('st', name);

/**
 * A `study` span's attack record (decisions §15): the `dreadnode.airt.*`
 * attributes in the columns of RECORD_COLUMNS, trials counted from its
 * `trial` children (finished: a `trial_status` other than pending or running).
 */
const STUDY_RECORD = `
  left(coalesce(nullif(${txt(airt('attack_name'))}, ''), st.name), 255) AS attack_name,
  coalesce(${txt(airt('goal'))}, '') AS goal,
  left(coalesce(${txt(airt('goal_category'))}, ''), 255) AS goal_category,
  coalesce(${num(airt('asr'), ATTACK_RANGES.asr)}, 0) AS asr,
  coalesce(${txt(airt('attacker_model'))}, '') AS attacker_model,
  coalesce(${txt(airt('target_model'))}, '') AS target_model,
  coalesce(${txt(airt('evaluator_model'))}, '') AS evaluator_model,
  coalesce(${txt(airt('best_candidate'))}, '') AS best_candidate, NULL::jsonb AS best_candidate_parts,
  coalesce(${txt(airt('best_response'))}, '') AS best_response, NULL::jsonb AS best_response_parts,
  NULL::jsonb AS best_modality_scores,
  coalesce(${num(airt('best_score'), ATTACK_RANGES.best_score)}, 0) AS best_score,
  coalesce(${txt(airt('category'))}, '') AS category,
  coalesce(${txt(airt('sub_category'))}, '') AS sub_category,
  coalesce(${num(airt('execution_time_s'), ATTACK_RANGES.execution_time_s)}, least(st.duration_ms / 1000, ${ATTACK_RANGES.execution_time_s[1]})) AS execution_time_s,
  tr.finished AS finished_trials, tr.total AS total_trials,
  coalesce(${bool(airt('is_jailbreak'))}, false) AS is_jailbreak,
  st.span_id, st.trace_id,
  CASE WHEN jsonb_typeof(${airt('transforms')}) = 'array'
       THEN (SELECT coalesce(jsonb_agg(x #>> '{}'), '[]'::jsonb) FROM jsonb_array_elements(${airt('transforms')}) AS x WHERE jsonb_typeof(x) <> 'null')
       ELSE '[]'::jsonb END AS transforms`;

/**
 * The attacks of an assessment's `study` spans among ($trace_ids, $span_ids):
 * each inserted once (ingest order after the assessment's last) or, when its
 * span was seen before, rewritten with its trials counted anew.
 */
export const upsertStudyAttacksSql = () => `
  INSERT INTO airt_attack_spans (assessment_id, seq, organization_id, workspace_id, from_trace, ${SPAN_COLUMNS}, reply_json, reply_version)
  SELECT $assessment_id::uuid, $base_seq::int + (row_number() OVER (ORDER BY r.start_time, r.span_id))::int, $organization_id::uuid, $workspace_id::uuid, true,
         ${SPAN_COLUMNS.split(',').map((column) => `r.${column.trim()}`).join(', ')}, ${storedReplyJson(AttackSpanResponse, 'r')}, ${storedReplyVersion(AttackSpanResponse)}
    FROM (SELECT DISTINCT ON (st.trace_id, st.span_id) st.start_time, ${STUDY_RECORD}
            FROM spans st
           CROSS JOIN LATERAL (
                 SELECT count(*)::int AS total,
                        count(*) FILTER (WHERE coalesce(c.trial_status, '') NOT IN ('pending', 'running'))::int AS finished
                   -- One per trial span, even if it was stored twice under two start times (the newest copy's status), as the trials route reads them.
                   FROM (SELECT DISTINCT ON (c.span_id) c.attributes ->> 'dreadnode.airt.trial_status' AS trial_status
                           FROM spans c
                          WHERE c.organization_id = st.organization_id AND c.workspace_id = st.workspace_id AND c.trace_id = st.trace_id
                            AND c.parent_span_id = st.span_id AND c.span_type = 'trial'
                          ORDER BY c.span_id, c.start_time DESC) c) tr
           WHERE st.organization_id = $organization_id AND st.workspace_id = $workspace_id AND st.assessment_id = $assessment_id AND st.span_type = 'study'
             AND (st.trace_id, st.span_id) IN (SELECT k.t, k.s FROM unnest($trace_ids::text[], $span_ids::text[]) AS k(t, s))
           -- One attack per study span, even if it was stored twice under two start times (the newest wins).
           ORDER BY st.trace_id, st.span_id, st.start_time DESC) r
  ON CONFLICT (assessment_id, trace_id, span_id) WHERE from_trace DO UPDATE SET
    ${SPAN_COLUMNS.split(',').map((column) => `${column.trim()} = EXCLUDED.${column.trim()}`).join(', ')},
    reply_json = EXCLUDED.reply_json, reply_version = EXCLUDED.reply_version`;

/** The assessments of the `study` spans among ($trace_ids, $span_ids) (stored ones, in the span's workspace). */
export const STUDY_ASSESSMENTS_SQL = `
  SELECT DISTINCT a.id, a.workspace_id
    FROM spans st JOIN airt_assessments a ON a.id = st.assessment_id AND a.workspace_id = st.workspace_id
   WHERE st.organization_id = $organization_id AND st.span_type = 'study' AND st.assessment_id IS NOT NULL
     AND (st.trace_id, st.span_id) IN (SELECT k.t, k.s FROM unnest($trace_ids::text[], $span_ids::text[]) AS k(t, s))
   ORDER BY a.id`;

/** Attacks `x` of study spans `st` ($trace_ids, $span_ids) held by an assessment of a workspace the span has left. */
const LEFT_ATTACKS = `x.from_trace AND x.organization_id = $organization_id
   AND st.organization_id = $organization_id AND st.trace_id = x.trace_id AND st.span_id = x.span_id AND st.span_type = 'study'
   AND x.workspace_id <> st.workspace_id
   AND (x.trace_id, x.span_id) IN (SELECT k.t, k.s FROM unnest($trace_ids::text[], $span_ids::text[]) AS k(t, s))`;

/** The assessments holding such attacks. */
export const LEFT_ASSESSMENTS_SQL = `SELECT DISTINCT x.assessment_id AS id FROM airt_attack_spans x, spans st WHERE ${LEFT_ATTACKS} ORDER BY 1`;

/** Those attacks, removed (their assessments locked before). */
export const DROP_MOVED_ATTACKS_SQL = `DELETE FROM airt_attack_spans x USING spans st WHERE ${LEFT_ATTACKS}`;

/** Assessment rows locked for a derivation, in one order (by id) whatever the export. */
export const LOCK_ASSESSMENTS_SQL = `SELECT a.id, a.attack_seq FROM airt_assessments a WHERE a.id = ANY($ids::uuid[]) ORDER BY a.id FOR UPDATE`;

/** Per-dimension statistics of the assessment's spans as one jsonb object keyed by the dimension's value: its TOP_VALUES values with the most attacks (ties by value), so that a snapshot stays small however many distinct values the attacks bring. */
const dimension = (column: string) => `(
  SELECT coalesce(jsonb_object_agg(d.key, jsonb_build_object(
           'attacks', d.attacks, 'mean_asr', d.mean_asr, 'jailbreaks', d.jailbreaks, 'best_score', d.best_score)), '{}'::jsonb)
    FROM (SELECT x.${column} AS key, count(*) AS attacks, avg(x.asr) AS mean_asr,
                 count(*) FILTER (WHERE x.is_jailbreak) AS jailbreaks, max(x.best_score) AS best_score
            FROM airt_attack_spans x WHERE x.assessment_id = $assessment_id GROUP BY x.${column}
           ORDER BY count(*) DESC, x.${column} COLLATE "C" LIMIT ${TOP_VALUES}) d)`;

/**
 * Recomputes the analytics from every span of the assessment (one UPDATE …
 * FROM aggregate) and moves a pending assessment to running.
 * risk_score = round(10 × (0.7 × mean asr + 0.3 × jailbreaks / attacks), 2), in 0–10.
 */
export const RECOMPUTE_SQL = `
  UPDATE airt_assessments a SET
         total_attacks = t.attacks,
         total_trials = t.trials,
         attack_seq = $last_seq::int,
         overall_asr = t.mean_asr,
         risk_score = CASE WHEN t.attacks = 0 THEN NULL
                           ELSE round((10 * (0.7 * t.mean_asr + 0.3 * t.jailbreaks::float8 / t.attacks))::numeric, 2)::float8 END,
         analytics_snapshot = CASE WHEN t.attacks = 0 THEN NULL ELSE jsonb_build_object(
           'total_attacks', t.attacks,
           'total_jailbreaks', t.jailbreaks,
           'jailbreak_share', t.jailbreaks::float8 / t.attacks,
           'mean_asr', t.mean_asr,
           'best_score', t.best_score,
           'by_category', ${dimension('category')},
           'by_goal_category', ${dimension('goal_category')}) END,
         status = CASE WHEN a.status = 'pending' THEN 'running' ELSE a.status END,
         started_at = coalesce(a.started_at, now()),
         updated_at = now()
    FROM (SELECT count(*)::int AS attacks, avg(s.asr) AS mean_asr, count(*) FILTER (WHERE s.is_jailbreak)::int AS jailbreaks,
                 coalesce(sum(s.total_trials), 0) AS trials, max(s.best_score) AS best_score
            FROM airt_attack_spans s WHERE s.assessment_id = $assessment_id) t
   WHERE a.id = $assessment_id
  RETURNING a.*`;

/** Trace statistics (decisions §13), one statement over the spans. */
export const TRACE_STATS_SQL = `
  SELECT count(*)::int AS attack_spans,
         coalesce(sum(s.finished_trials), 0)::bigint AS trial_spans,
         (SELECT count(DISTINCT t.value)::int
            FROM airt_attack_spans x CROSS JOIN LATERAL jsonb_array_elements_text(x.transforms) AS t(value)
           WHERE x.assessment_id = $assessment_id) AS transform_spans,
         count(*) FILTER (WHERE s.is_jailbreak)::int AS total_jailbreaks,
         max(s.best_score) AS max_score,
         avg(s.best_score) AS avg_score,
         coalesce(sum(s.execution_time_s), 0) AS total_duration_s,
         CASE WHEN coalesce(sum(s.finished_trials), 0) > 0 THEN sum(s.execution_time_s) * 1000 / sum(s.finished_trials) END AS avg_trial_time_ms,
         coalesce(array_agg(DISTINCT s.attack_name ORDER BY s.attack_name), '{}') AS attack_names
    FROM airt_attack_spans s
   WHERE s.assessment_id = $assessment_id`;

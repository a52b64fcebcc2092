import crypto from 'node:crypto';
import { rowSelect, typeJson } from '../../core/graphql-sql/sql-fields';
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

/** A span row as the GraphQL resolvers read it: its keys and AttackSpanResponse's fields as they declare them. */
export const spanRowColumns = (alias: string) => `${alias}.assessment_id, ${alias}.seq, ${alias}.organization_id, ${alias}.workspace_id, ${rowSelect(AttackSpanResponse, alias)}`;

/**
 * One span as the JSON text of AttackSpanResponse, as its fields declare it
 * (@Sql in assessments.types.ts) and GraphQL serialises it, built by
 * PostgreSQL from the columns of `alias` (a stored span, or a record being
 * ingested).
 */
export const spanReplyJson = (alias: string) => `${typeJson(AttackSpanResponse, alias)}::text`;

/**
 * The version of that shape stored with each span's reply text: derived from
 * the statement text, so any change to a field's declaration changes it and
 * stored texts of the old shape are rebuilt when read instead of served
 * stale (1–32768: 15 bits of the hash, the column is a smallint).
 */
export const replyVersionOf = (sql: string) => parseInt(crypto.createHash('sha256').update(sql).digest('hex').slice(0, 4), 16) % 32768 + 1;
let version: number | undefined;
export const spanReplyVersion = () => (version ??= replyVersionOf(spanReplyJson('s')));

/** One INSERT … SELECT for the whole batch: the records arrive as one jsonb array, in order; each span's reply text is built once here. */
export const insertSpansSql = () => `
  INSERT INTO airt_attack_spans (assessment_id, seq, organization_id, workspace_id, ${SPAN_COLUMNS}, reply_json, reply_version)
  SELECT $assessment_id::uuid, $base_seq::int + e.ord::int, $organization_id::uuid, $workspace_id::uuid, ${SPAN_COLUMNS.split(',').map((column) => `r.${column.trim()}`).join(', ')},
         ${spanReplyJson('r')}, ${spanReplyVersion()}
    FROM jsonb_array_elements($attacks::jsonb) WITH ORDINALITY AS e(doc, ord)
    CROSS JOIN LATERAL jsonb_to_record(e.doc) AS r(${RECORD_COLUMNS})`;

/** Per-dimension statistics of the assessment's spans as one jsonb object keyed by the dimension's value. */
const dimension = (column: string) => `(
  SELECT coalesce(jsonb_object_agg(d.key, jsonb_build_object(
           'attacks', d.attacks, 'mean_asr', d.mean_asr, 'jailbreaks', d.jailbreaks, 'best_score', d.best_score)), '{}'::jsonb)
    FROM (SELECT x.${column} AS key, count(*) AS attacks, avg(x.asr) AS mean_asr,
                 count(*) FILTER (WHERE x.is_jailbreak) AS jailbreaks, max(x.best_score) AS best_score
            FROM airt_attack_spans x WHERE x.assessment_id = $assessment_id GROUP BY x.${column}) d)`;

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

/**
 * A span's stored reply text (AttackSpanResponse's SqlStored): written once
 * at ingest, since spans never change; NULL when it was stored under an
 * older shape (the engine then builds it from the columns).
 */
export const storedSpanText = (alias: string) => `CASE WHEN ${alias}.reply_version = ${spanReplyVersion()} THEN ${alias}.reply_json END`;

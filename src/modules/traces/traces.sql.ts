import type { SqlList } from '../../core/graphql-sql/sql-fields';
import { TOP_VALUES } from '../../core/pagination';

/**
 * The SQL of span ingest and trace reads (decisions §15). Counting, ordering
 * and statistics are PostgreSQL's; spans of a trace are read through
 * (organization_id, trace_id) and kept to the route's workspace.
 */

/** The stored columns, in the order of a COPY row (span-rows.ts). */
export const COPY_COLUMNS = [
  'organization_id', 'workspace_id', 'project_id', 'project_inferred', 'trace_id', 'span_id', 'parent_span_id', 'name', 'span_type', 'kind',
  'start_time', 'end_time', 'duration_ms', 'status_code', 'status_message', 'attributes', 'resource', 'events', 'run_id', 'evaluation_id',
  'evaluation_item_id', 'session_id', 'assessment_id', 'bytes',
] as const;
const COPY_COLUMN_LIST = COPY_COLUMNS.join(', ');
export const COPY_SPANS_SQL = `COPY spans (${COPY_COLUMN_LIST}) FROM STDIN`;

/**
 * An export some of whose spans were stored already (an exporter's retry):
 * its rows COPY'd into a temporary table, then inserted from there, a span
 * already stored skipped by its key. Returns the spans stored now, which
 * the red-team derivation reads. The table is made once per connection
 * (its rows deleted at each commit, so nothing is written to the catalogs
 * per retry); the service's role needs the database's TEMP privilege,
 * which PostgreSQL grants to every role unless revoked.
 */
export const CREATE_RETRY_SPANS_SQL = `CREATE TEMPORARY TABLE IF NOT EXISTS spans_retry (LIKE spans INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`;
export const COPY_RETRY_SPANS_SQL = `COPY spans_retry (${COPY_COLUMN_LIST}) FROM STDIN`;
export const INSERT_RETRY_SPANS_SQL = `
  INSERT INTO spans (${COPY_COLUMN_LIST})
  SELECT ${COPY_COLUMN_LIST} FROM spans_retry
  ON CONFLICT DO NOTHING
  RETURNING trace_id, span_id, parent_span_id, span_type`;

/** Transaction locks on traces (organization and trace id), taken in one order so two exports never wait on each other in a cycle. */
export const LOCK_TRACES_SQL = `
  SELECT count(pg_advisory_xact_lock(x.k)) FROM (
    SELECT DISTINCT hashtextextended($organization_id::text || ':' || t, 0) AS k FROM unnest($trace_ids::text[]) AS t ORDER BY 1) x`;

/**
 * The projects an export may name (by id or key), and the default projects,
 * of the organization.
 */
export const EXPORT_PROJECTS_SQL = `
  SELECT p.id, p.key, p.workspace_id, p.is_default, w.is_default AS workspace_is_default
    FROM projects p JOIN workspaces w ON w.id = p.workspace_id
   WHERE p.organization_id = $organization_id
     AND (p.id::text = ANY($refs::text[]) OR p.key::text = ANY($refs::text[]) OR (p.is_default AND (w.is_default OR w.id = $key_workspace_id::uuid)))
   ORDER BY p.created_at, p.id`;

/** Where the stored roots of some traces went (children sent without a project follow their root). */
export const STORED_ROOTS_SQL = `
  SELECT DISTINCT ON (s.trace_id) s.trace_id, s.project_id, s.workspace_id
    FROM spans s
   WHERE s.organization_id = $organization_id AND s.trace_id = ANY($trace_ids::text[]) AND s.parent_span_id IS NULL
   ORDER BY s.trace_id, s.start_time`;

/**
 * Of some traces, those with children placed by default before their root
 * (`project_inferred`, through the small index of such spans) whose root is
 * stored now: what an export settles after its commit.
 */
export const UNSETTLED_TRACES_SQL = `
  SELECT DISTINCT s.trace_id
    FROM spans s
   WHERE s.organization_id = $organization_id AND s.project_inferred AND s.trace_id = ANY($trace_ids::text[])
     AND EXISTS (SELECT 1 FROM spans r WHERE r.organization_id = s.organization_id AND r.trace_id = s.trace_id AND r.parent_span_id IS NULL)`;

/**
 * Children stored before their root, placed by default, follow their stored
 * root (through the small index of such spans); the red-team spans among
 * them come back, for their attacks to follow too.
 */
export const REHOME_SQL = `
  WITH roots AS (${STORED_ROOTS_SQL}),
  moved AS (
    UPDATE spans s SET project_id = r.project_id, workspace_id = r.workspace_id, project_inferred = false
      FROM roots r
     WHERE s.organization_id = $organization_id AND s.trace_id = r.trace_id AND s.project_inferred
       AND ($key_workspace_id::uuid IS NULL OR s.workspace_id = $key_workspace_id::uuid)
    RETURNING s.trace_id, s.span_id, s.parent_span_id, s.span_type)
  SELECT trace_id, span_id, parent_span_id, span_type FROM moved WHERE span_type IN ('study', 'trial')`;

/** `c.span_count` and `c.error_count` of the trace of root span `root` (its spans in the root's workspace). */
export const traceCounts = (root: string) => `CROSS JOIN LATERAL (
    SELECT count(*)::int AS span_count, count(*) FILTER (WHERE x.status_code = 2)::int AS error_count
      FROM spans x
     WHERE x.organization_id = ${root}.organization_id AND x.trace_id = ${root}.trace_id AND x.workspace_id = ${root}.workspace_id) c`;

/**
 * Root spans as trace summaries, with their trace's span and error counts.
 * `where` filters the roots `s`, `order` orders them, `window` (LIMIT …
 * OFFSET …) picks the page; `extraColumns` adds columns. The page is chosen
 * first and counted after: a lateral count beside the OFFSET would run for
 * every root skipped too, each over every partition (bench/README.md,
 * traces, the runs of 2026-11-28 03:17–03:43).
 */
export function traceSummariesSql(where: string, order: string, window: string, extraColumns = ''): string {
  return `
  SELECT s.trace_id, s.organization_id, s.workspace_id, s.name, s.span_type, s.project_id, s.start_time, s.end_time, s.duration_ms,
         c.span_count, c.error_count, CASE WHEN s.status_code = 2 OR c.error_count > 0 THEN 'error' ELSE 'ok' END AS status${extraColumns}
    FROM (SELECT * FROM spans s WHERE s.parent_span_id IS NULL AND ${where} ORDER BY ${order} ${window}) s
   ${traceCounts('s')}
   ORDER BY ${order}`;
}

/** The trace lists' order: newest root first (a total order: a trace with two roots ties on its id). */
export const NEWEST_FIRST = 's.start_time DESC, s.trace_id, s.span_id';

export function traceCountSql(where: string): string {
  return `SELECT count(*)::int AS total FROM spans s WHERE s.parent_span_id IS NULL AND ${where}`;
}

/**
 * A window of one trace's spans `s` in a workspace, in `order`: its FROM …
 * LIMIT (named parameters `$organization_id`, `$workspace_id`, `$trace_id`,
 * `$limit`, `$offset`).
 */
export function spanWindowSql(order: string): string {
  return `FROM spans s WHERE s.organization_id = $organization_id AND s.trace_id = $trace_id AND s.workspace_id = $workspace_id
    ORDER BY ${order} LIMIT $limit OFFSET $offset`;
}

/**
 * What span `s` counts against the reply budget (core/reply-budget.ts): its
 * `bytes`, the size of the row its ingest wrote. A span stored before that
 * column (migration 0071) is measured as it is read, by the text of its
 * attributes, resource, events and name.
 */
export const spanBytes = (s: string) =>
  `coalesce(${s}.bytes, octet_length(${s}.attributes::text) + octet_length(${s}.resource::text) + octet_length(${s}.events::text) + octet_length(${s}.name))`;

/**
 * The spans of the compiled spans reply: its root's one row holds the
 * window as an array of span rows in order (`spans`, see TRACE_SPANS_ROOT);
 * its `data` lists them back in that order.
 */
export const SPAN_WINDOW_DATA: SqlList = {
  kind: 'list',
  rows: (row, as) => ({ select: `SELECT w.* FROM unnest(${row}.spans) WITH ORDINALITY w`, orderBy: `${as}.ordinality` }),
};

/** Statistics of the spans `s` chosen by `from` (a FROM … WHERE over spans s); `span_types` counts the TOP_VALUES most frequent types. */
export function spanStatsSql(from: string): string {
  return `
  SELECT count(*)::int AS total_spans,
         count(*) FILTER (WHERE s.status_code = 2)::int AS error_spans,
         coalesce(extract(epoch FROM max(s.end_time) - min(s.start_time)) * 1000, 0)::float8 AS duration_ms,
         coalesce((SELECT jsonb_object_agg(t.span_type, t.n) FROM (
             SELECT coalesce(s.span_type, 'unknown') AS span_type, count(*) AS n ${from}
              GROUP BY 1 ORDER BY n DESC, coalesce(s.span_type, 'unknown') COLLATE "C" LIMIT ${TOP_VALUES}) t), '{}'::jsonb) AS span_types,
         min(s.start_time) AS first_start,
         max(s.end_time) AS last_end
    ${from}`;
}

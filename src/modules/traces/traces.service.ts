import type { AppContext } from '../../core/context';
import { NotFoundError } from '../../core/errors';
import { pageInfo, readPage } from '../../core/pagination';
import { resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { compiledShare, loadWithinReply, rowsWithinReply, withinCompiledShareSql } from '../../core/reply-budget';
import type { SqlRoot } from '../../core/graphql-sql/sql-fields';
import { resolveProject } from '../projects/projects.service';
import { SPAN_PAGE, TRACE_PAGE, type SpanListArgs, type TraceListArgs } from './traces.inputs';
import { NEWEST_FIRST, spanBytes, spanStatsSql, spanWindowSql, traceCounts, traceCountSql, traceSummariesSql } from './traces.sql';
import { SPAN_META, spanSelect, SpanOrderBy, SpanOrderDirection, type SpanResponse, type TraceDetail, type TraceListResponse, type TraceSpansResponse, type TraceStatsResponse, type TraceSummary } from './traces.types';

/**
 * Trace reads (decisions §15): a trace is its root span's summary; its
 * spans are those of the route's workspace. Every read starts with the
 * tenant (resolveWorkspace). A trace with no root in the workspace has no
 * summary (404 for getTrace); its spans and statistics answer as soon as the
 * workspace holds any of its spans (a root is exported last, when it ends).
 */

const TRACE_ID = /^[0-9a-f]{32}$/;

function checkTraceId(traceId: string): string {
  const id = traceId.toLowerCase();
  if (!TRACE_ID.test(id)) throw new NotFoundError('Trace');
  return id;
}

export async function listTraces(ctx: AppContext, org: string, ws: string, args: TraceListArgs): Promise<TraceListResponse> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const page = args.page ?? 1;
  const limit = args.page_size ?? TRACE_PAGE.fallback;
  const bind: Record<string, unknown> = { workspace_id: scope.workspace.id, limit, offset: (page - 1) * limit };
  const where = ['s.workspace_id = $workspace_id'];
  if (args.project_id) {
    bind.project_id = (await resolveProject(scope, args.project_id)).id;
    where.push('s.project_id = $project_id');
  }
  if (args.span_type) {
    bind.span_type = args.span_type;
    where.push('s.span_type = $span_type');
  }
  const filter = where.join(' AND ');
  const { total, rows } = await readPage(
    page,
    limit,
    async () => (await plainQuery<{ total: number }>(traceCountSql(filter), bind, { prepare: true }))[0].total,
    () => plainQuery<TraceSummary>(traceSummariesSql(filter, NEWEST_FIRST, 'LIMIT $limit OFFSET $offset'), bind, { prepare: true }),
  );
  return { traces: rows, ...pageInfo(total, page, limit) };
}

/**
 * The root of a trace in the workspace, or 404. Its attributes may be as
 * large as an export, so the read counts the root's size (spanBytes)
 * against the request's reply budget: aliased reads take turns, and once
 * they pass it the rest are refused before they read anything.
 */
export async function getTrace(ctx: AppContext, org: string, ws: string, traceId: string): Promise<TraceDetail> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const id = checkTraceId(traceId);
  const trace = await loadWithinReply(ctx, async () => {
    const [row] = await plainQuery<TraceDetail & { size: number }>(
      traceSummariesSql('s.organization_id = $organization_id AND s.trace_id = $trace_id AND s.workspace_id = $workspace_id', 's.start_time, s.span_id', 'LIMIT 1', `, s.attributes, ${spanBytes('s')} AS size`),
      { organization_id: scope.org.id, workspace_id: scope.workspace.id, trace_id: id },
      { prepare: 'trace-by-id' },
    );
    return { value: row, bytes: row?.size ?? 0 };
  });
  if (!trace) throw new NotFoundError('Trace');
  return trace;
}

const ORDER_COLUMNS: Record<SpanOrderBy, string> = {
  [SpanOrderBy.Timestamp]: 'start_time',
  [SpanOrderBy.Duration]: 'duration_ms',
  [SpanOrderBy.SpanName]: 'name',
};

/** The tenant, the trace id (404), then a window's order (columns of a span row, a tie broken by span id) and parameters (spanWindowSql). */
async function spanWindow(ctx: AppContext, org: string, ws: string, traceId: string, args: SpanListArgs) {
  const scope = await resolveWorkspace(ctx, org, ws);
  const id = checkTraceId(traceId);
  const direction = (args.order_dir ?? SpanOrderDirection.ASC) === SpanOrderDirection.DESC ? 'DESC' : 'ASC';
  const columns = [ORDER_COLUMNS[args.order_by ?? SpanOrderBy.Timestamp], 'span_id'];
  const order = columns.map((column) => `${column} ${direction}`);
  return {
    scope,
    columns,
    order,
    orderOf: (alias: string) => order.map((column) => `${alias}.${column}`).join(', '),
    bind: { organization_id: scope.org.id, workspace_id: scope.workspace.id, trace_id: id, limit: args.limit ?? SPAN_PAGE.fallback, offset: args.offset ?? 0 },
  };
}

/**
 * A window of the spans of a trace of the workspace (404 when the workspace
 * holds none of it), held to what the request may still load for its reply:
 * PostgreSQL adds up the spans' sizes (spanBytes) and sends those within it
 * and the first one past it, which makes the read 422 reply_too_large.
 */
export async function traceSpans(ctx: AppContext, org: string, ws: string, traceId: string, args: SpanListArgs): Promise<TraceSpansResponse> {
  const { scope, order, orderOf, bind } = await spanWindow(ctx, org, ws, traceId, args);
  const data = await rowsWithinReply<SpanResponse>(ctx, {
    rows: `SELECT s.*, ${spanBytes('s')} AS size ${spanWindowSql(orderOf('s'))}`,
    order,
    select: spanSelect(),
    bind,
    prepare: true,
  });
  if (!data.length && !(await traceExists(scope, bind.trace_id))) throw new NotFoundError('Trace');
  return { data, rows: data.length, meta: SPAN_META };
}

/**
 * The same window as the compiled reply's root (SqlRoot of `trace_spans`):
 * one row whose `spans` holds the window's span rows in order. A document
 * may hold as many such roots as aliases, so each is answered here only
 * while its spans' sizes come to at most its share of MAX_REPLY_BYTES
 * (PostgreSQL adds them up first, and builds no span row past it); a larger
 * window, like an empty one, leaves the reply to the resolvers (traceSpans:
 * the budget of the whole request, or 404, or no spans past the end).
 */
export const TRACE_SPANS_ROOT: SqlRoot = {
  async from(ctx, args, params, as) {
    const { columns, orderOf, bind } = await spanWindow(ctx, String(args.org), String(args.workspace), String(args.trace_id), args as SpanListArgs);
    params.named({ ...bind, ...compiledShare() });
    // The window's sort keys come out beside each row, so the LIMIT stays on the sort (top-N) and the rows are put in order again.
    return `(SELECT array_agg(w.s ORDER BY ${orderOf('w')}) AS spans FROM (SELECT s, ${columns.map((column) => `s.${column}`).join(', ')} ${spanWindowSql(orderOf('s'))}) w
              WHERE ${withinCompiledShareSql(`SELECT ${spanBytes('s')} AS size ${spanWindowSql(orderOf('s'))}`)}) ${as}
      WHERE ${as}.spans IS NOT NULL`;
  },
};

async function traceExists(scope: WorkspaceScope, traceId: string): Promise<boolean> {
  const rows = await plainQuery(
    'SELECT 1 FROM spans s WHERE s.organization_id = $organization_id AND s.trace_id = $trace_id AND s.workspace_id = $workspace_id LIMIT 1',
    { organization_id: scope.org.id, workspace_id: scope.workspace.id, trace_id: traceId },
  );
  return rows.length > 0;
}

interface StatsRow {
  total_spans: number;
  error_spans: number;
  duration_ms: number;
  span_types: Record<string, number>;
  first_start: Date | null;
  last_end: Date | null;
}

/** Statistics of one trace's spans in the workspace (404 when it holds none). */
export async function traceStats(ctx: AppContext, org: string, ws: string, traceId: string): Promise<TraceStatsResponse> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const [row] = await plainQuery<StatsRow>(
    spanStatsSql('FROM spans s WHERE s.organization_id = $organization_id AND s.trace_id = $trace_id AND s.workspace_id = $workspace_id'),
    { organization_id: scope.org.id, workspace_id: scope.workspace.id, trace_id: checkTraceId(traceId) },
    { prepare: 'trace-stats' },
  );
  if (!row.total_spans) throw new NotFoundError('Trace');
  return row;
}

/**
 * The spans of an evaluation's traces: the traces whose root names the
 * evaluation (`dreadnode.evaluation.id`) in the workspace, all their spans.
 */
export const evaluationSpansFrom = `
  FROM (SELECT DISTINCT r.organization_id, r.trace_id, r.workspace_id FROM spans r
         WHERE r.workspace_id = $workspace_id AND r.parent_span_id IS NULL AND r.evaluation_id = $evaluation_id) root
  -- Each trace once, though its root was stored twice (under two start times).
  JOIN spans s ON s.organization_id = root.organization_id AND s.trace_id = root.trace_id AND s.workspace_id = root.workspace_id`;

export async function evaluationTraceStats(scope: WorkspaceScope, evaluationId: string): Promise<TraceStatsResponse> {
  const [row] = await plainQuery<StatsRow>(spanStatsSql(evaluationSpansFrom), { workspace_id: scope.workspace.id, evaluation_id: evaluationId }, { prepare: 'evaluation-trace-stats' });
  return row;
}

/**
 * Traces of an evaluation, by item (roots naming `dreadnode.evaluation.item_id`), items in creation order. The
 * page of items is chosen first and its traces counted after (as traceSummariesSql): counted beside the OFFSET,
 * every trace of every item skipped would be counted too.
 */
export async function evaluationTraceItems(scope: WorkspaceScope, evaluationId: string, window: { limit: number; offset: number }) {
  return plainQuery<{ item_id: string; task_name: string | null; trace_ids: string[]; span_count: number; error_count: number; duration_ms: number }>(
    evaluationTraceItemsSql,
    { workspace_id: scope.workspace.id, evaluation_id: evaluationId, ...window },
    { prepare: 'evaluation-trace-items' },
  );
}

const evaluationRoots = (alias: string) =>
  `${alias}.workspace_id = $workspace_id AND ${alias}.parent_span_id IS NULL AND ${alias}.evaluation_id = $evaluation_id AND ${alias}.evaluation_item_id IS NOT NULL`;

/** The statement of evaluationTraceItems (exported for the test of its plan). */
export const evaluationTraceItemsSql = `
  WITH page AS (
    SELECT root.evaluation_item_id AS item_id, min(i.task_name) AS task_name, min(i.created_at) AS created_at
      FROM spans root
      -- Only the evaluation's own items: a span may name any id (an item of another evaluation, a made-up one).
      JOIN evaluation_items i ON i.id = root.evaluation_item_id AND i.evaluation_id = root.evaluation_id
     WHERE ${evaluationRoots('root')}
     GROUP BY root.evaluation_item_id
     ORDER BY min(i.created_at), root.evaluation_item_id
     LIMIT $limit OFFSET $offset)
  SELECT page.item_id, page.task_name,
         (array_agg(root.trace_id ORDER BY root.start_time))[1:100] AS trace_ids,
         sum(c.span_count)::int AS span_count, sum(c.error_count)::int AS error_count, sum(root.duration_ms)::float8 AS duration_ms
    FROM page
    -- Each trace once, though its root was stored twice (under two start times): the newest copy.
    JOIN (SELECT DISTINCT ON (r.evaluation_item_id, r.trace_id) r.organization_id, r.workspace_id, r.trace_id, r.evaluation_item_id, r.start_time, r.duration_ms
            FROM spans r
           WHERE ${evaluationRoots('r')} AND r.evaluation_item_id IN (SELECT item_id FROM page)
           ORDER BY r.evaluation_item_id, r.trace_id, r.start_time DESC) root ON root.evaluation_item_id = page.item_id
    ${traceCounts('root')}
   GROUP BY page.item_id, page.task_name, page.created_at
   ORDER BY page.created_at, page.item_id`;

/** Traces whose root names the evaluation, newest first (GraphQL `EvaluationJobResponse.traces`). */
export async function evaluationTraces(scope: WorkspaceScope, evaluationId: string, limit: number): Promise<TraceSummary[]> {
  return plainQuery<TraceSummary>(
    traceSummariesSql('s.workspace_id = $workspace_id AND s.evaluation_id = $evaluation_id', NEWEST_FIRST, 'LIMIT $limit'),
    { workspace_id: scope.workspace.id, evaluation_id: evaluationId, limit },
    { prepare: true },
  );
}

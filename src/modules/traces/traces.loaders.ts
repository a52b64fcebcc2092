import { childrenLoader } from '../../core/loaders/children-loader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';
import { NEWEST_FIRST, spanBytes, spanStatsSql, traceSummariesSql } from './traces.sql';
import { rowsWithinReply, type ReplyRequest } from '../../core/reply-budget';
import type { LoaderDeps } from '../../core/module';
import { spanSelect, type SpanResponse, type TraceStatsResponse, type TraceSummary } from './traces.types';
import DataLoader from 'dataloader';

/** A trace as its GraphQL parent knows it: where its spans are read. */
export const traceKey = (trace: { organization_id?: string; workspace_id?: string; trace_id: string }) => `${trace.organization_id}|${trace.workspace_id}|${trace.trace_id}`;
const KEY_PARTS = `CROSS JOIN LATERAL (SELECT split_part(k.id, '|', 1)::uuid AS org, split_part(k.id, '|', 2)::uuid AS ws, split_part(k.id, '|', 3) AS trace) p`;

type TraceRow = TraceSummary & { parent_id: string; [column: string]: unknown };
type SpanRow = SpanResponse & { parent_id: string; [column: string]: unknown };

/**
 * Trace navigation of dashboards: the newest traces of each workspace,
 * evaluation or assessment, one statement per batch (unnest + LATERAL),
 * bound to the viewer's tenant when made.
 */
export function createTraceLoaders(viewer: Viewer | null, _deps: LoaderDeps, request: ReplyRequest | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  const traces = (where: string) =>
    childrenLoader<TraceRow>(
      'parent_id',
      tenant &&
        ((ids, limit) =>
          plainQuery<TraceRow>(
            `SELECT k.id AS parent_id, t.* FROM unnest($ids::uuid[]) AS k(id)
              CROSS JOIN LATERAL (${traceSummariesSql(`${where} AND ${tenant.where('s')}`, NEWEST_FIRST, 'LIMIT $limit')}) t`,
            { ...tenant.bind, ids, limit },
          )),
    );
  return {
    /** workspace → its traces, newest first. */
    tracesByWorkspace: traces('s.workspace_id = k.id'),
    /** evaluation → the traces whose root names it, in the evaluation's workspace (as the REST routes read them). */
    tracesByEvaluation: traces('s.evaluation_id = k.id AND (s.organization_id, s.workspace_id) = (SELECT e.organization_id, e.workspace_id FROM evaluations e WHERE e.id = k.id)'),
    /** trace → its first spans by start time (the trace's own workspace), the batch held to the request's reply budget as one window of spans is. */
    spansByTrace: childrenLoader<SpanRow>(
      'parent_id',
      tenant &&
        request &&
        ((ids, limit) =>
          rowsWithinReply<SpanRow>(request, {
            rows: `SELECT k.id AS parent_id, t.*, ${spanBytes('t')} AS size FROM unnest($ids::text[]) AS k(id) ${KEY_PARTS}
                    CROSS JOIN LATERAL (SELECT s.* FROM spans s
                                         WHERE s.organization_id = p.org AND s.workspace_id = p.ws AND s.trace_id = p.trace AND ${tenant.where('s')}
                                         ORDER BY s.start_time, s.span_id LIMIT $limit) t`,
            order: ['parent_id', 'start_time', 'span_id'],
            select: `y.parent_id, ${spanSelect()}`,
            bind: { ...tenant.bind, ids, limit },
          })),
    ),
    /** trace → its statistics. */
    statsByTrace: new DataLoader<string, TraceStatsResponse | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<TraceStatsResponse & { parent_id: string }>(
        `SELECT k.id AS parent_id, x.* FROM unnest($ids::text[]) AS k(id) ${KEY_PARTS}
          CROSS JOIN LATERAL (${spanStatsSql(`FROM spans s WHERE s.organization_id = p.org AND s.workspace_id = p.ws AND s.trace_id = p.trace AND ${tenant.where('s')}`)}) x`,
        { ...tenant.bind, ids: [...ids] },
      );
      const byId = new Map(rows.map((row) => [row.parent_id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    /** assessment → the traces holding one of its study spans, rooted in the assessment's workspace (as tracesByEvaluation). */
    tracesByAssessment: traces(
      `(s.organization_id, s.workspace_id) = (SELECT a.organization_id, a.workspace_id FROM airt_assessments a WHERE a.id = k.id)
       AND (s.organization_id, s.trace_id) IN (SELECT st.organization_id, st.trace_id FROM spans st JOIN airt_assessments a ON a.id = st.assessment_id AND a.workspace_id = st.workspace_id WHERE st.assessment_id = k.id)`,
    ),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createTraceLoaders> {}
}

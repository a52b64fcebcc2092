import type { AttackSpanResponse } from './assessments.types';
import DataLoader from 'dataloader';
import type { AssessmentModel, RecordOf, SessionModel } from '../../../models';
import { childrenLoader } from '../../core/loaders/children-loader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';
import { visibleSql } from '../sessions/session.policy';
import { assessmentBytes, attackBytes, spanRowColumns } from './assessments.sql';
import { rowsWithinReply, type ReplyRequest } from '../../core/reply-budget';
import type { LoaderDeps } from '../../core/module';

/**
 * Loaders of the dashboard navigation, bound to the viewer's tenant when
 * made: one statement per batch (and per distinct limit), never one per parent.
 */
type AttackRow = AttackSpanResponse & { assessment_id: string; [column: string]: unknown };

export function createAssessmentLoaders(viewer: Viewer | null, _deps: LoaderDeps, request: ReplyRequest | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;

  return {
    /** project → its assessments, newest first, the batch held to the request's reply budget (rows of up to ~400 KB). */
    assessmentsByProject: childrenLoader<RecordOf<AssessmentModel>>(
      'project_id',
      tenant &&
        request &&
        ((ids, limit) =>
          rowsWithinReply<RecordOf<AssessmentModel>>(request, {
            rows: `SELECT a.*, ${assessmentBytes('a')} AS size FROM unnest($ids::uuid[]) AS k(id)
                    CROSS JOIN LATERAL (SELECT * FROM airt_assessments x WHERE x.project_id = k.id ORDER BY x.created_at DESC, x.id DESC LIMIT $limit) a
                   WHERE ${tenant.where('a')}`,
            order: ['project_id', 'created_at DESC', 'id DESC'],
            bind: { ...tenant.bind, ids, limit },
          })),
    ),

    /** assessment → its attack spans in ingest order, the batch held to the request's reply budget (spans of ~1 MiB each). */
    attacksByAssessment: childrenLoader<AttackRow>(
      'assessment_id',
      tenant &&
        request &&
        ((ids, limit) =>
          rowsWithinReply<AttackRow>(request, {
            rows: `SELECT s.*, ${attackBytes('s')} AS size FROM unnest($ids::uuid[]) AS k(id)
                    CROSS JOIN LATERAL (SELECT x.* FROM airt_attack_spans x WHERE x.assessment_id = k.id ORDER BY x.seq LIMIT $limit) s
                   WHERE ${tenant.where('s')}`,
            order: ['assessment_id', 'seq'],
            select: spanRowColumns('y'),
            bind: { ...tenant.bind, ids, limit },
          })),
    ),

    /** An assessment's session, when the caller can see it (owner, or shared with the workspace). */
    assessmentSessionById: new DataLoader<string, RecordOf<SessionModel> | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<RecordOf<SessionModel>>(
        `SELECT s.* FROM sessions s
          WHERE s.id = ANY($ids::uuid[]) AND ${tenant.where('s')} AND ${visibleSql('s')}`,
        { ...tenant.bind, ids: [...ids] },
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createAssessmentLoaders> {}
}

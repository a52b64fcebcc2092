import type { RecordOf, WorkflowRunModel } from '../../../models';
import { childrenLoader } from '../../core/loaders/children-loader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';

/** project → its newest runs, one statement per batch (and per distinct limit), bound to the viewer's tenant. */
export function createWorkflowRunLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    workflowRunsByProject: childrenLoader<RecordOf<WorkflowRunModel>>(
      'project_id',
      tenant &&
        ((ids, limit) =>
          plainQuery<RecordOf<WorkflowRunModel>>(
            `SELECT r.* FROM unnest($ids::uuid[]) AS k(id)
               CROSS JOIN LATERAL (SELECT * FROM workflow_runs x WHERE x.project_id = k.id ORDER BY x.created_at DESC, x.id DESC LIMIT $limit) r
              WHERE ${tenant.where('r')}
              ORDER BY r.created_at DESC, r.id DESC`,
            { ...tenant.bind, ids, limit },
          )),
    ),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createWorkflowRunLoaders> {}
}

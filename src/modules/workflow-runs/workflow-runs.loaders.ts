import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { RecordOf, WorkflowRunModel } from '../../../models';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { database } from '../../db/database';

export interface ProjectRunsKey {
  project_id: string;
  limit: number;
}

const keyOf = (key: ProjectRunsKey) => `${key.project_id}:${key.limit}`;

/** project → its newest runs, one statement per batch (and per distinct limit), bound to the viewer's tenant. */
export function createWorkflowRunLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    workflowRunsByProject: new DataLoader<ProjectRunsKey, RecordOf<WorkflowRunModel>[], string>(
      async (keys) => {
        if (!tenant) return keys.map(() => []);
        const out = new Map<string, RecordOf<WorkflowRunModel>[]>(keys.map((key) => [keyOf(key), []]));
        const byLimit = new Map<number, string[]>();
        for (const key of keys) byLimit.set(key.limit, [...(byLimit.get(key.limit) ?? []), key.project_id]);
        await Promise.all(
          [...byLimit.entries()].map(async ([limit, ids]) => {
            const rows = await database().query<RecordOf<WorkflowRunModel>>(
              `SELECT r.* FROM unnest($ids::uuid[]) AS k(id)
                 CROSS JOIN LATERAL (SELECT * FROM workflow_runs x WHERE x.project_id = k.id ORDER BY x.created_at DESC, x.id DESC LIMIT $limit) r
                WHERE ${tenant.where('r')}
                ORDER BY r.created_at DESC, r.id DESC`,
              { bind: { ...tenant.bind, ids, limit }, type: QueryTypes.SELECT },
            );
            for (const row of rows) out.get(`${row.project_id}:${limit}`)?.push(row);
          }),
        );
        return keys.map((key) => out.get(keyOf(key)) ?? []);
      },
      { cacheKeyFn: keyOf },
    ),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createWorkflowRunLoaders> {}
}

import DataLoader from 'dataloader';
import type { OrganizationModel, RecordOf } from '../../../models';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';

/** Batched look-ups for workspace fields, bound to the viewer's tenant: one statement per field per request. */
export function createWorkspaceLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    organizationById: new DataLoader<string, RecordOf<OrganizationModel> | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<RecordOf<OrganizationModel>>(
        `SELECT o.* FROM organizations o WHERE o.id = ANY($ids::uuid[]) AND ${tenant.where('o', { org: 'id', workspace: false })}`,
        { ...tenant.bind, ids: [...ids] },
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    workspaceProjectCount: new DataLoader<string, number>(async (ids) => {
      if (!tenant) return ids.map(() => 0);
      const rows = await plainQuery<{ workspace_id: string; count: string }>(
        `SELECT p.workspace_id, count(*) AS count FROM projects p
          WHERE p.workspace_id = ANY($ids::uuid[]) AND ${tenant.where('p')} GROUP BY p.workspace_id`,
        { ...tenant.bind, ids: [...ids] },
      );
      const byId = new Map(rows.map((row) => [row.workspace_id, Number(row.count)]));
      return ids.map((id) => byId.get(id) ?? 0);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createWorkspaceLoaders> {}
}

import DataLoader from 'dataloader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';

/** Batched organization look-ups, bound to the viewer's organizations. */
export function createOrganizationLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    organizationMemberCount: new DataLoader<string, number>(async (ids) => {
      if (!tenant) return ids.map(() => 0);
      const rows = await plainQuery<{ organization_id: string; count: string }>(
        `SELECT m.organization_id, count(*) AS count FROM memberships m
          WHERE m.organization_id = ANY($ids::uuid[]) AND ${tenant.where('m', { workspace: false })} GROUP BY m.organization_id`,
        { ...tenant.bind, ids: [...ids] },
      );
      const byId = new Map(rows.map((row) => [row.organization_id, Number(row.count)]));
      return ids.map((id) => byId.get(id) ?? 0);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createOrganizationLoaders> {}
}

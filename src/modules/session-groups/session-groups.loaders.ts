import DataLoader from 'dataloader';
import type { RecordOf, SessionGroupModel } from '../../../models';
import { plainQuery } from '../../db/hot';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';

/** Session groups by id, bound to the viewer's tenant; their counts are columns of the row. */
export function createSessionGroupLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    sessionGroupById: new DataLoader<string, RecordOf<SessionGroupModel> | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<RecordOf<SessionGroupModel>>(
        `SELECT g.* FROM session_groups g WHERE g.id = ANY($ids::uuid[]) AND ${tenant.where('g')}`,
        { ...tenant.bind, ids: [...ids] },
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createSessionGroupLoaders> {}
}

import DataLoader from 'dataloader';
import { SessionGroupModel, type RecordOf } from '../../../models';
import { plainQuery } from '../../db/hot';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';

/**
 * Every column of a group but its metadata, which no reply carries: a page
 * of sessions loads the group of each, and read whole, groups of large
 * metadata were parsed for every page.
 */
let groupColumns: string | undefined;
const groupSelect = () =>
  (groupColumns ??= Object.entries(SessionGroupModel.getAttributes())
    .map(([name, attribute]) => attribute.field ?? name)
    .filter((name) => name !== 'metadata')
    .map((name) => `g.${name}`)
    .join(', '));

/** Session groups by id (without their metadata), bound to the viewer's tenant; their counts are columns of the row. */
export function createSessionGroupLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    sessionGroupById: new DataLoader<string, RecordOf<SessionGroupModel> | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<RecordOf<SessionGroupModel>>(
        `SELECT ${groupSelect()} FROM session_groups g WHERE g.id = ANY($ids::uuid[]) AND ${tenant.where('g')}`,
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

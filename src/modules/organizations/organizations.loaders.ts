import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import { database } from '../../db/database';
import type { Viewer } from '../../context/viewer';

/**
 * Batched organization look-ups. Callers only load ids of organizations the
 * viewer already passed the membership check for.
 */
export function createOrganizationLoaders(_viewer: Viewer | null) {
  return {
    organizationMemberCount: new DataLoader<string, number>(async (ids) => {
      const rows = await database().query<{ organization_id: string; count: string }>(
        'SELECT organization_id, count(*) AS count FROM memberships WHERE organization_id IN (:ids) GROUP BY organization_id',
        { replacements: { ids: [...ids] }, type: QueryTypes.SELECT },
      );
      const byId = new Map(rows.map((row) => [row.organization_id, Number(row.count)]));
      return ids.map((id) => byId.get(id) ?? 0);
    }),
  };
}

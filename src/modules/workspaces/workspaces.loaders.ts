import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import { OrganizationModel } from '../../../models';
import { database } from '../../db/database';
import type { Viewer } from '../../context/viewer';

/** Batched look-ups for workspace fields: one statement per field per request. */
export function createWorkspaceLoaders(_viewer: Viewer | null) {
  return {
    organizationById: new DataLoader<string, OrganizationModel | null>(async (ids) => {
      const rows = await OrganizationModel.findAll({ where: { id: [...ids] } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    workspaceProjectCount: new DataLoader<string, number>(async (ids) => {
      const rows = await database().query<{ workspace_id: string; count: string }>(
        'SELECT workspace_id, count(*) AS count FROM projects WHERE workspace_id IN (:ids) GROUP BY workspace_id',
        { replacements: { ids: [...ids] }, type: QueryTypes.SELECT },
      );
      const byId = new Map(rows.map((row) => [row.workspace_id, Number(row.count)]));
      return ids.map((id) => byId.get(id) ?? 0);
    }),
  };
}

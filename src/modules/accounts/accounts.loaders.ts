import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import { UserModel } from '../../../models';
import type { Viewer } from '../../core/viewer';

/** Users are global records; the tenant check happens on the parent resource. */
export function createAccountLoaders(_viewer: Viewer | null) {
  return {
    userById: new DataLoader<string, UserModel | null>(async (ids) => {
      const rows = await UserModel.findAll({ where: { id: { [Op.in]: [...ids] } } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createAccountLoaders> {}
}

import { QueryTypes } from 'sequelize';
import { PrimedLoader } from '../../core/loaders/primed-loader';
import type { UserIdentityRecord } from '../../../models';
import type { Viewer } from '../../core/viewer';
import { database } from '../../db/database';

/**
 * Users are global records; the tenant check happens on the parent resource.
 * Only identity columns are read (no hashes), as plain rows.
 */
export function createAccountLoaders(_viewer: Viewer | null) {
  return {
    userById: new PrimedLoader<UserIdentityRecord | null>(async (ids) => {
      const rows = await database().query<UserIdentityRecord>('SELECT id, email, username, full_name FROM users WHERE id = ANY($ids::uuid[])', {
        bind: { ids: [...ids] },
        type: QueryTypes.SELECT,
      });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createAccountLoaders> {}
}

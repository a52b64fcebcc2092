import DataLoader from 'dataloader';
import type { UserIdentityRecord } from '../../../models';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';

/**
 * Users are global records; the tenant check happens on the parent resource.
 * Only identity columns are read (no hashes), as plain rows.
 */
export function createAccountLoaders(_viewer: Viewer | null) {
  return {
    userById: new DataLoader<string, UserIdentityRecord | null>(async (ids) => {
      const rows = await plainQuery<UserIdentityRecord>('SELECT id, email, username, full_name FROM users WHERE id = ANY($ids::uuid[])', { ids: [...ids] });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createAccountLoaders> {}
}

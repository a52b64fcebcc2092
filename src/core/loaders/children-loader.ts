import DataLoader from 'dataloader';

/** A parent and how many of its children to load. */
export interface ChildrenKey {
  parent_id: string;
  limit: number;
}

const keyOf = (key: ChildrenKey) => `${key.parent_id}:${key.limit}`;

/**
 * The first `limit` children of each parent for GraphQL navigation: one
 * statement per batch and distinct limit, never one per parent. `read` runs
 * that statement for the parents' ids (typically `unnest($ids) CROSS JOIN
 * LATERAL (… LIMIT $limit)`, bound to the viewer's tenant) and returns rows
 * carrying `parentColumn`, in order; without a tenant (`read` null) every
 * list is empty.
 */
export function childrenLoader<T extends Record<string, unknown>>(
  parentColumn: string,
  read: ((ids: string[], limit: number) => Promise<T[]>) | null,
): DataLoader<ChildrenKey, T[], string> {
  return new DataLoader<ChildrenKey, T[], string>(
    async (keys) => {
      if (!read) return keys.map(() => []);
      const out = new Map<string, T[]>(keys.map((key) => [keyOf(key), []]));
      const byLimit = new Map<number, string[]>();
      for (const key of keys) byLimit.set(key.limit, [...(byLimit.get(key.limit) ?? []), key.parent_id]);
      await Promise.all(
        [...byLimit.entries()].map(async ([limit, ids]) => {
          for (const row of await read(ids, limit)) out.get(`${row[parentColumn] as string}:${limit}`)?.push(row);
        }),
      );
      return keys.map((key) => out.get(keyOf(key)) ?? []);
    },
    { cacheKeyFn: keyOf },
  );
}

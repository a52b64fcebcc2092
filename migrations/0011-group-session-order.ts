import type { Migration } from './types';

/**
 * A group's sessions in list order (GraphQL `session_group.sessions` takes
 * the newest N of each group): the LATERAL ... LIMIT walks this index instead
 * of sorting every session of the group. It replaces the plain group index.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE INDEX sessions_group_order_idx ON sessions (group_id, updated_at DESC, id DESC) WHERE group_id IS NOT NULL;
    DROP INDEX IF EXISTS sessions_group_idx;
  `);
};

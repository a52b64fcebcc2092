import type { Migration } from './types';

/**
 * Every sort of the active-session list from the index: the active-sessions
 * index also carries created_at, last_message_at and message_count, so a page
 * of active sessions sorted by any of them is chosen by an index-only scan
 * (a top-N sort over the index entries) and only the page's rows are read
 * from the table (sessionPageSql). It replaces the index of
 * migration 0005 under the same name.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE INDEX sessions_active_workspace_sorts_idx ON sessions (workspace_id, updated_at DESC, id DESC)
      INCLUDE (user_id, visibility, origin, agent, model, project_id, group_id, labels, created_at, last_message_at, message_count)
      WHERE archived_at IS NULL;
    DROP INDEX sessions_active_workspace_idx;
    ALTER INDEX sessions_active_workspace_sorts_idx RENAME TO sessions_active_workspace_idx;
  `);
};

import type { Migration } from './types';

/**
 * Indexes for the session list and facets. Facets and the default list read
 * the active sessions of one workspace: a partial index keeps that set small,
 * and it carries every column the visibility filter and the facet counts
 * need, so counting is an index-only scan (no heap visit per session).
 * Search is ILIKE over title and preview text, served by trigram indexes
 * (pg_trgm is created by 0001).
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE INDEX sessions_active_workspace_idx ON sessions (workspace_id, updated_at DESC, id DESC)
      INCLUDE (user_id, visibility, origin, agent, model, project_id, group_id, labels)
      WHERE archived_at IS NULL;
    CREATE INDEX sessions_workspace_idx ON sessions (workspace_id, archived_at);
    CREATE INDEX sessions_workspace_user_idx ON sessions (workspace_id, user_id);
    CREATE INDEX sessions_group_idx ON sessions (group_id) WHERE group_id IS NOT NULL;
    CREATE INDEX sessions_project_idx ON sessions (project_id) WHERE project_id IS NOT NULL;
    CREATE INDEX sessions_labels_idx ON sessions USING gin (labels jsonb_path_ops);
    CREATE INDEX sessions_title_trgm_idx ON sessions USING gin (title gin_trgm_ops);
    CREATE INDEX sessions_preview_trgm_idx ON sessions USING gin (preview_text gin_trgm_ops);

    CREATE INDEX session_groups_workspace_idx ON session_groups (workspace_id, created_at DESC, id DESC);
    CREATE INDEX session_groups_project_idx ON session_groups (project_id);
    CREATE INDEX session_messages_usage_idx ON session_messages (session_id, seq DESC) WHERE has_usage;
  `);
};

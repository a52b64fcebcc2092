import type { Migration } from './types';

/**
 * Facet counts of the dashboard's default view (a workspace's active
 * user-origin sessions), maintained by PostgreSQL on every write so the
 * unfiltered facets are a sum over a few hundred rows instead of a scan of
 * the workspace's sessions (src/modules/sessions/facet-counts.ts).
 *
 * - `owner_key` keeps visibility exact: shared sessions count under the
 *   all-zero uuid, private ones under their owner. A viewer's facets are the
 *   shared bucket plus their own.
 * - `slot` spreads one counter over up to 64 rows (the writing connection's
 *   backend pid modulo 64), so concurrent saves into one workspace update
 *   different rows instead of queueing behind one row lock. Readers sum the
 *   slots.
 * - Triggers keep the counts: on sessions for every insert, delete and
 *   update that changes a counted column (transcript appends change none of
 *   them and do not fire it), on session_groups when a group's kind or
 *   status changes (its sessions move between values) and before a group is
 *   deleted (its sessions leave the group dimensions; the ON DELETE SET NULL
 *   that follows no longer finds the group, so nothing is counted twice).
 * - `session_facet_counts_rebuild(workspace)` recounts from scratch: the
 *   backfill below, and the benchmark's bulk load.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE session_facet_counts (
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      owner_key uuid NOT NULL,
      dim text NOT NULL,
      label_key text NOT NULL DEFAULT '',
      value text NOT NULL,
      slot smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (workspace_id, owner_key, dim, label_key, value, slot)
    );

    -- What one session contributes to the counts (nothing unless it is an active user-origin session).
    CREATE FUNCTION session_facet_rows(
      p_user_id uuid, p_visibility text, p_archived_at timestamptz, p_origin text,
      p_agent text, p_model text, p_labels jsonb, p_group_id uuid
    ) RETURNS TABLE (owner_key uuid, dim text, label_key text, value text, n bigint)
    LANGUAGE sql STABLE AS $fn$
      SELECT CASE WHEN p_visibility = 'workspace' THEN '00000000-0000-0000-0000-000000000000'::uuid ELSE p_user_id END,
             d.dim, d.label_key, d.value, count(*)
        FROM (
          SELECT 'agent' AS dim, '' AS label_key, p_agent AS value
          UNION ALL SELECT 'model', '', p_model
          UNION ALL SELECT 'origin', '', p_origin
          UNION ALL SELECT 'user', '', p_user_id::text
          UNION ALL SELECT 'group_kind', '', g.kind FROM session_groups g WHERE g.id = p_group_id
          UNION ALL SELECT 'group_status', '', g.status FROM session_groups g WHERE g.id = p_group_id
          UNION ALL SELECT 'label', l.key, v.value
            FROM jsonb_each(p_labels) l
           CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(l.value) = 'array' THEN l.value ELSE '[]'::jsonb END) v
        ) d
       WHERE p_archived_at IS NULL AND p_origin = 'user' AND d.value IS NOT NULL
       GROUP BY d.dim, d.label_key, d.value
    $fn$;

    CREATE FUNCTION session_facet_add(p_workspace_id uuid, p_rows jsonb) RETURNS void
    LANGUAGE sql AS $fn$
      INSERT INTO session_facet_counts AS c (workspace_id, owner_key, dim, label_key, value, slot, n)
      SELECT p_workspace_id, r.owner_key, r.dim, r.label_key, r.value, pg_backend_pid() % 64, sum(r.n)
        FROM jsonb_to_recordset(p_rows) AS r(owner_key uuid, dim text, label_key text, value text, n bigint)
       GROUP BY r.owner_key, r.dim, r.label_key, r.value
      HAVING sum(r.n) <> 0
       ORDER BY r.owner_key, r.dim, r.label_key, r.value
      ON CONFLICT (workspace_id, owner_key, dim, label_key, value, slot) DO UPDATE SET n = c.n + EXCLUDED.n
    $fn$;

    CREATE FUNCTION sessions_facet_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      changes jsonb := '[]'::jsonb;
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT changes || coalesce(jsonb_agg(jsonb_build_object('owner_key', r.owner_key, 'dim', r.dim, 'label_key', r.label_key, 'value', r.value, 'n', -r.n)), '[]')
          INTO changes
          FROM session_facet_rows(OLD.user_id, OLD.visibility, OLD.archived_at, OLD.origin, OLD.agent, OLD.model, OLD.labels, OLD.group_id) r;
        IF TG_OP = 'DELETE' OR NEW.workspace_id <> OLD.workspace_id THEN
          PERFORM session_facet_add(OLD.workspace_id, changes);
          changes := '[]'::jsonb;
        END IF;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT changes || coalesce(jsonb_agg(jsonb_build_object('owner_key', r.owner_key, 'dim', r.dim, 'label_key', r.label_key, 'value', r.value, 'n', r.n)), '[]')
          INTO changes
          FROM session_facet_rows(NEW.user_id, NEW.visibility, NEW.archived_at, NEW.origin, NEW.agent, NEW.model, NEW.labels, NEW.group_id) r;
        PERFORM session_facet_add(NEW.workspace_id, changes);
      END IF;
      RETURN NULL;
    END
    $fn$;

    CREATE TRIGGER sessions_facet_counts_insert_delete AFTER INSERT OR DELETE ON sessions
      FOR EACH ROW EXECUTE FUNCTION sessions_facet_counts_trigger();
    CREATE TRIGGER sessions_facet_counts_update AFTER UPDATE ON sessions
      FOR EACH ROW
      WHEN ((OLD.workspace_id, OLD.user_id, OLD.visibility, OLD.archived_at, OLD.origin, OLD.agent, OLD.model, OLD.labels, OLD.group_id)
            IS DISTINCT FROM (NEW.workspace_id, NEW.user_id, NEW.visibility, NEW.archived_at, NEW.origin, NEW.agent, NEW.model, NEW.labels, NEW.group_id))
      EXECUTE FUNCTION sessions_facet_counts_trigger();

    -- A group's kind or status moves its counted sessions between values; a deleted group takes them out of both dimensions.
    CREATE FUNCTION session_groups_facet_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO session_facet_counts AS c (workspace_id, owner_key, dim, label_key, value, slot, n)
      SELECT s.workspace_id,
             CASE WHEN s.visibility = 'workspace' THEN '00000000-0000-0000-0000-000000000000'::uuid ELSE s.user_id END AS owner_key,
             v.dim, '', v.value, pg_backend_pid() % 64, sum(v.n)
        FROM sessions s
       CROSS JOIN LATERAL (
         SELECT 'group_kind' AS dim, OLD.kind AS value, -1 AS n
         UNION ALL SELECT 'group_status', OLD.status, -1
         UNION ALL SELECT 'group_kind', NEW.kind, 1 WHERE TG_OP = 'UPDATE'
         UNION ALL SELECT 'group_status', NEW.status, 1 WHERE TG_OP = 'UPDATE'
       ) v
       WHERE s.group_id = OLD.id AND s.archived_at IS NULL AND s.origin = 'user' AND v.value IS NOT NULL
       GROUP BY 1, 2, 3, 5
      HAVING sum(v.n) <> 0
       ORDER BY 1, 2, 3, 5
      ON CONFLICT (workspace_id, owner_key, dim, label_key, value, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END
    $fn$;

    CREATE TRIGGER session_groups_facet_counts_update AFTER UPDATE ON session_groups
      FOR EACH ROW WHEN (OLD.kind IS DISTINCT FROM NEW.kind OR OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION session_groups_facet_counts_trigger();
    CREATE TRIGGER session_groups_facet_counts_delete BEFORE DELETE ON session_groups
      FOR EACH ROW EXECUTE FUNCTION session_groups_facet_counts_trigger();

    -- Recounts one workspace (all when null) from its sessions.
    CREATE FUNCTION session_facet_counts_rebuild(p_workspace_id uuid) RETURNS void LANGUAGE sql AS $fn$
      DELETE FROM session_facet_counts WHERE p_workspace_id IS NULL OR workspace_id = p_workspace_id;
      INSERT INTO session_facet_counts (workspace_id, owner_key, dim, label_key, value, slot, n)
      SELECT s.workspace_id, r.owner_key, r.dim, r.label_key, r.value, 0, sum(r.n)
        FROM sessions s
       CROSS JOIN LATERAL session_facet_rows(s.user_id, s.visibility, s.archived_at, s.origin, s.agent, s.model, s.labels, s.group_id) r
       WHERE (p_workspace_id IS NULL OR s.workspace_id = p_workspace_id) AND s.archived_at IS NULL AND s.origin = 'user'
       GROUP BY 1, 2, 3, 4, 5;
    $fn$;

    SELECT session_facet_counts_rebuild(NULL);
  `);
};

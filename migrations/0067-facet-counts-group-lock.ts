import type { Migration } from './types';

/**
 * The session facet-count trigger (migration 0014) reads the status and kind
 * of the session's group, and a group's own trigger moves the sessions it
 * can see when those change. A session written while its group's status
 * changed was seen by neither (each read the other's state as last
 * committed), and the counts drifted for good. The session trigger now locks
 * the groups the row names (old and new, in id order) before it counts, so
 * a group's status change and a write of one of its sessions take turns:
 * whichever commits second sees the first. `FOR NO KEY UPDATE`, not
 * `FOR SHARE`: two saves into one group then queue instead of both holding
 * a shared lock and deadlocking when each updates the group's roll-ups.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE OR REPLACE FUNCTION sessions_facet_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      changes jsonb := '[]'::jsonb;
    BEGIN
      PERFORM 1 FROM session_groups g
        WHERE g.id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.group_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.group_id END)
        ORDER BY g.id FOR NO KEY UPDATE;
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
  `);
};

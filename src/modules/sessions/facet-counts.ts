import { SessionArchivedScope } from './sessions.types';
import type { SessionFilterArgs } from './sessions.inputs';
import { TOP_VALUES } from '../../core/pagination';

/**
 * The dashboard's default facets (a workspace's active user-origin sessions
 * the caller can see, no filter) come from counts PostgreSQL keeps on every
 * write (migration 0014: `session_facet_counts`, triggers on sessions and
 * session groups; 0067: a session write locks its groups' rows, so it and a
 * change of a group's status take turns): the shared sessions' bucket plus the caller's private one,
 * summed over the counter slots. Any filter falls back to counting the
 * sessions (`facetSql`). Both statements return the same rows, ranked and
 * capped the same way.
 */
export function usesFacetCounts(args: SessionFilterArgs): boolean {
  return (
    (args.archived ?? SessionArchivedScope.active) === SessionArchivedScope.active &&
    !args.include_workload_sessions &&
    !args.user_id &&
    !args.search &&
    ![args.project_id, args.agent, args.model, args.origin, args.user, args.label].some((values) => values?.length)
  );
}

/** Shared sessions count under this key; private ones under their owner's id. */
export const SHARED_OWNER_KEY = '00000000-0000-0000-0000-000000000000';

export const FACET_COUNTS_SQL = `
  WITH counted AS (
    SELECT c.dim, NULLIF(c.label_key, '') AS label_key, c.value, sum(c.n) AS n
      FROM session_facet_counts c
     WHERE c.workspace_id = $workspace_id AND c.owner_key IN ('${SHARED_OWNER_KEY}'::uuid, $viewer_id::uuid)
     GROUP BY c.dim, c.label_key, c.value
    HAVING sum(c.n) > 0
  ),
  ranked AS (
    SELECT c.*, row_number() OVER (PARTITION BY c.dim, c.label_key ORDER BY c.n DESC, c.value) AS value_rank FROM counted c
  ),
  top_keys AS (
    SELECT r.label_key FROM ranked r WHERE r.dim = 'label'
     GROUP BY r.label_key ORDER BY sum(r.n) DESC, r.label_key LIMIT ${TOP_VALUES}
  )
  SELECT c.dim, c.label_key, c.value, c.n, u.email, u.username, u.full_name
    FROM ranked c
    LEFT JOIN users u ON u.id = CASE WHEN c.dim = 'user' THEN c.value::uuid END
   WHERE c.value_rank <= ${TOP_VALUES}
     AND (c.dim <> 'label' OR c.label_key IN (SELECT label_key FROM top_keys))`;

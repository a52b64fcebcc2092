import { TOP_VALUES } from '../../core/pagination';
import { isUuid } from '../../core/scalars';
import { parseLabelFilters } from './labels';
import { visibleSql } from './session.policy';
import type { SessionFilterArgs } from './sessions.inputs';
import { SessionArchivedScope, SessionSortBy, SortDirection } from './sessions.types';

/**
 * The SQL of the session list and facets, in one place (the benchmark times
 * these same statements).
 */

/** A WHERE clause over `sessions s` with its bind parameters ($name). */
export interface SessionWhere {
  sql: string;
  bind: Record<string, unknown>;
}

/** Escapes LIKE wildcards so `search` matches literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The filters shared by the list and the facets: the caller's visible
 * sessions of one workspace in the archived scope, workload origins left out
 * unless asked for, then every parameter AND-ed (values of one parameter OR-ed;
 * label values OR-ed per key, keys AND-ed). `labels` are the parsed `label`
 * filters when the caller has parsed them already (it checks them before the
 * tenant lookup).
 */
export function sessionWhere(
  workspaceId: string,
  viewerId: string,
  args: SessionFilterArgs,
  labels: Map<string, string[]> = parseLabelFilters(args.label ?? [], ['label']),
): SessionWhere {
  const bind: Record<string, unknown> = { workspace_id: workspaceId, viewer_id: viewerId };
  const parts = ['s.workspace_id = $workspace_id', visibleSql('s', '$viewer_id')];

  const scope = args.archived ?? SessionArchivedScope.active;
  if (scope === SessionArchivedScope.active) parts.push('s.archived_at IS NULL');
  if (scope === SessionArchivedScope.archived) parts.push('s.archived_at IS NOT NULL');
  if (!args.include_workload_sessions) parts.push("s.origin = 'user'");

  if (args.user_id) {
    bind.owner_id = args.user_id;
    parts.push('s.user_id = $owner_id');
  }
  const lists: [keyof SessionFilterArgs, string, string][] = [
    ['project_id', 's.project_id', 'uuid[]'],
    ['agent', 's.agent', 'text[]'],
    ['model', 's.model', 'text[]'],
    ['origin', 's.origin', 'text[]'],
  ];
  for (const [name, column, type] of lists) {
    const values = args[name] as string[] | null | undefined;
    if (!values?.length) continue;
    bind[`f_${name}`] = [...new Set(values)];
    parts.push(`${column} = ANY($f_${name}::${type})`);
  }
  if (args.user?.length) {
    bind.user_ids = args.user.filter(isUuid).map((value) => value.toLowerCase());
    bind.user_names = args.user;
    parts.push(`s.user_id IN (SELECT u.id FROM users u
      WHERE u.id = ANY($user_ids::uuid[]) OR u.username = ANY($user_names::citext[]) OR u.email = ANY($user_names::citext[]))`);
  }
  [...labels.entries()].forEach(([key, values], index) => {
    bind[`label_key_${index}`] = key;
    bind[`label_values_${index}`] = [...new Set(values)];
    parts.push(`(s.labels -> $label_key_${index}::text) ?| $label_values_${index}::text[]`);
  });
  if (args.search) {
    bind.search = likePattern(args.search);
    parts.push('(s.title ILIKE $search OR s.preview_text ILIKE $search)');
  }
  return { sql: parts.join('\n AND '), bind };
}

const SORT_COLUMNS: Record<SessionSortBy, string> = {
  [SessionSortBy.updated_at]: 's.updated_at',
  [SessionSortBy.last_message_at]: 's.last_message_at',
  [SessionSortBy.created_at]: 's.created_at',
  [SessionSortBy.message_count]: 's.message_count',
};

/**
 * The page statement of the list (exported so the benchmark times the same
 * SQL): the page's ids are chosen first (for active sessions, the default
 * scope, from the active-sessions index alone, which carries every sort
 * column since migration 0013), then only those rows are read from the
 * table.
 */
export function sessionPageSql(whereSql: string, sortBy: SessionSortBy, sortDir: SortDirection): string {
  const order = sessionOrder(sortBy, sortDir);
  return `SELECT to_json(s) AS "s" FROM (${pageIdsSql(whereSql, order, '$limit', '$offset')}) page
           JOIN sessions s ON s.id = page.id
          ORDER BY ${order}`;
}

/** The ids of one page of the list, in its order (`limit` and `offset` are placeholders). */
const pageIdsSql = (whereSql: string, order: string, limit: string, offset: string) =>
  `SELECT s.id FROM sessions s WHERE ${whereSql} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;

/** The ids of one page in the list's order, by sort (the compiled list reply reads them as an array). */
export function sessionPageIdsSql(whereSql: string, sortBy: SessionSortBy, sortDir: SortDirection, limit: string, offset: string): string {
  return pageIdsSql(whereSql, sessionOrder(sortBy, sortDir), limit, offset);
}

/** The list's ORDER BY over sessions `s`. */
function sessionOrder(sortBy: SessionSortBy, sortDir: SortDirection): string {
  const direction = sortDir === SortDirection.asc ? 'ASC' : 'DESC';
  // Only last_message_at can be null; leaving NULLS LAST off the others lets
  // the default order (updated_at desc, id desc) walk the partial index.
  const nulls = sortBy === SessionSortBy.last_message_at ? ' NULLS LAST' : '';
  return `${SORT_COLUMNS[sortBy]} ${direction}${nulls}, s.id ${direction}`;
}

export function sessionCountSql(whereSql: string): string {
  return `SELECT count(*) AS total FROM sessions s WHERE ${whereSql}`;
}

/**
 * Every facet in one statement: one pass of GROUPING SETS over the filtered
 * sessions (joined to their groups) for the scalar dimensions, plus the
 * label pairs expanded from the jsonb column. Null values are left out.
 * `base` is MATERIALIZED: one index-only scan of the partial index feeds both
 * halves. Inlining it (two scans) was faster for a single request, but only
 * through a parallel plan that got slower than this one as soon as two
 * requests ran at once (bench/README.md, sessions). Each list keeps
 * its TOP_VALUES most frequent values, the labels their TOP_VALUES most
 * used keys (a facet reply stays bounded).
 */
export function facetSql(whereSql: string): string {
  return `
    WITH base AS MATERIALIZED (
      SELECT s.agent, s.model, s.origin, s.user_id, s.labels, s.group_id FROM sessions s WHERE ${whereSql}
    ),
    counted AS (
      SELECT CASE WHEN GROUPING(b.agent) = 0 THEN 'agent'
                  WHEN GROUPING(b.model) = 0 THEN 'model'
                  WHEN GROUPING(b.origin) = 0 THEN 'origin'
                  WHEN GROUPING(b.user_id) = 0 THEN 'user'
                  WHEN GROUPING(g.kind) = 0 THEN 'group_kind'
                  ELSE 'group_status' END AS dim,
             NULL::text AS label_key,
             COALESCE(b.agent, b.model, b.origin, b.user_id::text, g.kind, g.status) AS value,
             count(*) AS n
        FROM base b LEFT JOIN session_groups g ON g.id = b.group_id
       GROUP BY GROUPING SETS ((b.agent), (b.model), (b.origin), (b.user_id), (g.kind), (g.status))
      UNION ALL
      SELECT 'label', l.key, v.value, count(*)
        FROM base b
       CROSS JOIN LATERAL jsonb_each(b.labels) l
       CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(l.value) = 'array' THEN l.value ELSE '[]'::jsonb END) v
       GROUP BY l.key, v.value
    )
    ,
    ranked AS (
      SELECT c.*, row_number() OVER (PARTITION BY c.dim, c.label_key ORDER BY c.n DESC, c.value) AS value_rank
        FROM counted c WHERE c.value IS NOT NULL
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
}

/**
 * Transcript messages `m` of `from` (the FROM clause on, naming them `m`)
 * with their stored size (`bytes`) as the reply budget counts it: the rows
 * every transcript read cuts at that budget (core/reply-budget.ts).
 */
export const messageRows = (from: string) => `SELECT m.*, m.bytes AS size ${from}`;

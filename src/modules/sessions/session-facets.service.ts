import type { AppContext } from '../../core/context';
import { resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { FACET_COUNTS_SQL, usesFacetCounts } from './facet-counts';
import { parseLabelFilters } from './labels';
import type { SessionFilterArgs } from './sessions.inputs';
import { facetSql, sessionWhere } from './sessions.sql';
import type { LabelFacetEntry, SessionFacetsResponse, UserFacetEntry } from './sessions.types';

/** Facets (spec 1): every dimension counted in PostgreSQL in one statement, shaped here. */
export interface FacetRow {
  dim: 'agent' | 'model' | 'origin' | 'user' | 'group_kind' | 'group_status' | 'label';
  label_key: string | null;
  value: string | null;
  n: string;
  email: string | null;
  username: string | null;
  full_name: string | null;
}

function byCountThenValue<T extends { count: number }>(key: (entry: T) => string) {
  return (a: T, b: T) => b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Shapes the counted rows: lists by count desc then value asc (users by username). */
export function toFacets(rows: FacetRow[]): SessionFacetsResponse {
  const lists: Record<'agent' | 'model' | 'origin' | 'group_kind' | 'group_status', LabelFacetEntry[]> = {
    agent: [],
    model: [],
    origin: [],
    group_kind: [],
    group_status: [],
  };
  const users: UserFacetEntry[] = [];
  const labels = new Map<string, LabelFacetEntry[]>();
  for (const row of rows) {
    const entry = { count: Number(row.n), value: row.value! };
    if (row.dim === 'user') {
      if (row.username) users.push({ count: entry.count, id: row.value!, email: row.email!, username: row.username, full_name: row.full_name });
    } else if (row.dim === 'label') {
      const list = labels.get(row.label_key!) ?? [];
      list.push(entry);
      labels.set(row.label_key!, list);
    } else {
      lists[row.dim].push(entry);
    }
  }
  const byValue = byCountThenValue<LabelFacetEntry>((entry) => entry.value);
  return {
    agents: lists.agent.sort(byValue),
    models: lists.model.sort(byValue),
    origins: lists.origin.sort(byValue),
    users: users.sort(byCountThenValue<UserFacetEntry>((entry) => entry.username)),
    labels: Object.fromEntries([...labels.keys()].sort().map((key) => [key, labels.get(key)!.sort(byValue)])),
    group_kinds: lists.group_kind.sort(byValue),
    group_statuses: lists.group_status.sort(byValue),
  };
}

export async function sessionFacets(ctx: AppContext, org: string, ws: string, args: SessionFilterArgs): Promise<SessionFacetsResponse> {
  const labels = parseLabelFilters(args.label ?? [], ['label']); // 422 before the tenant lookup
  const scope = await resolveWorkspace(ctx, org, ws);
  if (usesFacetCounts(args)) {
    return toFacets(await plainQuery<FacetRow>(FACET_COUNTS_SQL, { workspace_id: scope.workspace.id, viewer_id: scope.viewer.user.id }, { prepare: 'session_facet_counts' }));
  }
  return toFacets(await countFacets(scope.workspace.id, scope.viewer.user.id, args, labels));
}

/** Facets counted from the sessions themselves: every filtered request (and the reference the maintained counts are tested against). */
export async function countFacets(workspaceId: string, viewerId: string, args: SessionFilterArgs, labels?: Map<string, string[]>): Promise<FacetRow[]> {
  const where = sessionWhere(workspaceId, viewerId, args, labels);
  return plainQuery<FacetRow>(facetSql(where.sql), where.bind);
}

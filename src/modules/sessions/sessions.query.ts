import { isUuid } from '../../core/scalars';
import { parseLabelFilters } from './labels';
import type { SessionFilterArgs } from './sessions.inputs';
import { SessionArchivedScope } from './sessions.types';

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
  const parts = ['s.workspace_id = $workspace_id', "(s.user_id = $viewer_id OR s.visibility = 'workspace')"];

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

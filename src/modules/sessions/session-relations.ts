import { ProjectModel, SessionGroupModel, SessionModel, type RecordOf, type UserIdentityRecord } from '../../../models';
import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../../core/context';
import { selectedFields } from '../../core/graphql-selection';
import { lastGenerationSql, toStats, USAGE_AGGREGATE, type UsageRow } from './session-usage';

/**
 * What a session reply shows beside the session (its project, its group with
 * the group's counts, its owner and sharer, its usage), read in the same
 * statement as the sessions (`s`) and primed into the request's loaders, so
 * the field resolvers run no statement of their own. Projects and groups are
 * joined only from the session's own workspace. Usage is joined only when
 * selected.
 */
export interface SessionJoins {
  relations: boolean;
  usage: boolean;
}

const RELATION_FIELDS = ['project_key', 'project_name', 'project', 'group', 'created_by', 'shared_by', 'creator'];

/** What the sessions at `path` of the current selection show beside them: joined only when selected. */
export function selectedJoins(info: GraphQLResolveInfo, path: string[] = []): SessionJoins {
  const selected = selectedFields(info, path);
  return { relations: RELATION_FIELDS.some((name) => selected.has(name)), usage: selected.has('usage') || selected.has('recent_message_count') };
}

/**
 * Each joined row comes back as one JSON column (`to_json(p)`): node-postgres
 * parses it with one native JSON.parse instead of a type parser per column,
 * which was most of the node CPU of a 100-session page. Its timestamps come
 * back as strings and are turned into Dates once here.
 */
const identity = (alias: string) =>
  `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'email', ${alias}.email, 'username', ${alias}.username, 'full_name', ${alias}.full_name) END AS "${alias}"`;

function dateColumns(model: { getAttributes(): Record<string, { field?: string; type: unknown }> }): string[] {
  return Object.entries(model.getAttributes())
    .filter(([, attribute]) => (attribute.type as { key?: string }).key === 'DATE')
    .map(([name, attribute]) => attribute.field ?? name);
}

let relationDates: { session: string[]; project: string[]; group: string[] } | undefined;
function withDates<T>(row: Record<string, unknown> | null | undefined, columns: string[]): T | null {
  if (!row) return null;
  for (const column of columns) if (typeof row[column] === 'string') row[column] = new Date(row[column] as string);
  return row as T;
}

/** The select list and joins of `joins` beside sessions `s` (empty strings when none). */
export function sessionJoinSql(joins: SessionJoins): { select: string; from: string } {
  const select: string[] = [];
  const from: string[] = [];
  if (joins.relations) {
    select.push('to_json(p) AS "p"', 'to_json(g) AS "g"', identity('u'), identity('su'));
    from.push(
      // Only the session's own workspace: a row pointing elsewhere resolves nothing here (the loaders, which a
      // GraphQL field falls back to when nothing was primed, are bound to the organization; no write can point a
      // session at another workspace's project or group).
      // Each is a key lookup per session (LATERAL … LIMIT 1 is never flattened into a join): the generic plan of
      // a page, whose LIMIT is a parameter, guesses thousands of rows and hashed a sequential scan of every
      // tenant's session groups instead (bench/README.md, requests: relations joined per row).
      'LEFT JOIN LATERAL (SELECT * FROM projects p WHERE p.id = s.project_id AND p.workspace_id = s.workspace_id LIMIT 1) p ON TRUE',
      'LEFT JOIN LATERAL (SELECT * FROM session_groups g WHERE g.id = s.group_id AND g.workspace_id = s.workspace_id LIMIT 1) g ON TRUE',
      'LEFT JOIN LATERAL (SELECT * FROM users u WHERE u.id = s.user_id LIMIT 1) u ON TRUE',
      'LEFT JOIN LATERAL (SELECT * FROM users su WHERE su.id = s.shared_by LIMIT 1) su ON TRUE',
    );
  }
  if (joins.usage) {
    select.push(`to_jsonb(st) || jsonb_build_object('last_generation_input_tokens', lg.input_tokens) AS "usage_row"`);
    from.push(
      // Messages of the session's own organization only, as the tenant-bound usage loader.
      `LEFT JOIN LATERAL (SELECT ${USAGE_AGGREGATE} FROM session_messages m WHERE m.session_id = s.id AND m.organization_id = s.organization_id) st ON TRUE`,
      `LEFT JOIN LATERAL (${lastGenerationSql('s.id', 's.organization_id')}) lg ON TRUE`,
    );
  }
  return { select: select.map((part) => `, ${part}`).join(''), from: from.join('\n') };
}

/**
 * The session of a row read as `to_json(s) AS "s"` with sessionJoinSql beside
 * it, its relations and usage primed into the loaders.
 */
export function primeSessionRow(ctx: AppContext, row: Record<string, unknown>): RecordOf<SessionModel> {
  relationDates ??= { session: dateColumns(SessionModel), project: dateColumns(ProjectModel), group: dateColumns(SessionGroupModel) };
  const session = withDates<RecordOf<SessionModel>>(row.s as Record<string, unknown>, relationDates.session)!;
  const project = withDates<RecordOf<ProjectModel>>(row.p as Record<string, unknown> | null, relationDates.project);
  const group = withDates<RecordOf<SessionGroupModel>>(row.g as Record<string, unknown> | null, relationDates.group);
  if (project) ctx.loaders.sessionProjectById.prime(project.id, project);
  if (group) ctx.loaders.sessionGroupById.prime(group.id, group);
  for (const user of [row.u as UserIdentityRecord | null, row.su as UserIdentityRecord | null]) if (user) ctx.loaders.userById.prime(user.id, user);
  if (row.usage_row) ctx.loaders.sessionStats.prime(session.id, toStats(row.usage_row as unknown as UsageRow));
  return session;
}

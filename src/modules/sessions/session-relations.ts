import { ProjectModel, SessionGroupModel, SessionModel, type RecordOf, type UserIdentityRecord } from '../../../models';
import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../../core/context';
import { selectedFields } from '../../core/graphql-selection';
import { nestRow, present } from '../../db/hot';
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

/** Columns of a model under a prefix, for statements that read several tables at once. */
export function columnsOf(model: { getAttributes(): Record<string, { field?: string }> }, alias: string): string {
  return Object.entries(model.getAttributes())
    .map(([name, attribute]) => `${alias}.${attribute.field ?? name} AS "${alias}.${name}"`)
    .join(', ');
}

const IDENTITY = ['id', 'email', 'username', 'full_name'];
const identity = (alias: string) => IDENTITY.map((column) => `${alias}.${column} AS "${alias}.${column}"`).join(', ');

/** The select list and joins of `joins` beside sessions `s` (empty strings when none). */
export function sessionJoinSql(joins: SessionJoins): { select: string; from: string } {
  const select: string[] = [];
  const from: string[] = [];
  if (joins.relations) {
    select.push(columnsOf(ProjectModel, 'p'), columnsOf(SessionGroupModel, 'g'), identity('u'), identity('su'));
    from.push(
      // Only the session's own workspace: a row pointing elsewhere resolves nothing (as the tenant-bound loaders).
      'LEFT JOIN projects p ON p.id = s.project_id AND p.workspace_id = s.workspace_id',
      'LEFT JOIN session_groups g ON g.id = s.group_id AND g.workspace_id = s.workspace_id',
      'LEFT JOIN users u ON u.id = s.user_id',
      'LEFT JOIN users su ON su.id = s.shared_by',
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

/** The session of a row read with sessionJoinSql, its relations and usage primed into the loaders. */
export function primeSessionRow(ctx: AppContext, flat: Record<string, unknown>, sessionPrefix: string | null): RecordOf<SessionModel> {
  const row = nestRow(flat);
  const session = (sessionPrefix ? row[sessionPrefix] : row) as unknown as RecordOf<SessionModel>;
  const project = present<RecordOf<ProjectModel>>(row.p);
  const group = present<RecordOf<SessionGroupModel>>(row.g);
  if (project) ctx.loaders.sessionProjectById.prime(project.id, project);
  if (group) ctx.loaders.sessionGroupById.prime(group.id, group);
  for (const user of [present<UserIdentityRecord>(row.u), present<UserIdentityRecord>(row.su)]) if (user) ctx.loaders.userById.prime(user.id, user);
  if (row.usage_row) ctx.loaders.sessionStats.prime(session.id, toStats(row.usage_row as unknown as UsageRow));
  return session;
}

import {
  column,
  columns,
  expression,
  timestamp,
  type SqlField,
  type SqlList,
  type SqlObject,
  type SqlSchemaPart,
} from '../../core/graphql-sql/sql-fields';
import { childLimit } from '../../core/loaders/children-loader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import { USER_IDENTITY_SQL } from '../accounts/accounts.mapper';
import { visibleSql } from './session.policy';

/**
 * The sessions of a parent that GraphQL navigation lists (workspace.sessions,
 * group.sessions): which column points at the parent and which sessions
 * count. The loaders and the SQL lists below both read them from here.
 */
export const CHILD_SESSIONS = {
  /** Active, user-origin sessions of a workspace. */
  workspace: { column: 'workspace_id', condition: (x: string) => `${x}.archived_at IS NULL AND ${x}.origin = 'user'` },
  /** Every session of a group (any origin, any archive state). */
  group: { column: 'group_id', condition: () => 'TRUE' },
} as const;

/** Newest first, as the child-session loaders order them. */
export const NEWEST = (x: string) => `${x}.updated_at DESC, ${x}.id DESC`;

/**
 * `parent.sessions(limit)` in SQL: the caller's visible sessions of the
 * parent row, newest first, the limit clamped to 1–100 as the resolvers do.
 */
export function childSessionsSql(parent: keyof typeof CHILD_SESSIONS): SqlList {
  const { column: parentColumn, condition } = CHILD_SESSIONS[parent];
  return {
    kind: 'list',
    rows(row, as, args, params, ctx) {
      if (!ctx.viewer) return null;
      const tenant = tenantFilter(ctx.viewer);
      params.named(tenant.bind);
      const limit = params.add(childLimit(Number(args.limit)));
      return {
        select: `SELECT ${as}.* FROM sessions ${as}
          WHERE ${as}.${parentColumn} = ${row}.id AND ${condition(as)} AND ${visibleSql(as)} AND ${tenant.where(as)}
          ORDER BY ${NEWEST(as)} LIMIT ${limit}`,
        orderBy: NEWEST(as),
      };
    },
  };
}

/** toSession in SQL: the fields of a SessionResponse that are the session row's own, in reply order. */
export const SESSION_SQL = {
  ...columns('id', 'agent', 'model', 'title', 'origin', 'visibility', 'workspace_id', 'user_id', 'project_id', 'runtime_id', 'group_id'),
  labels: expression((s) => `coalesce(${s}.labels, '{}'::jsonb)`),
  message_count: column('message_count'),
  preview_text: column('preview_text'),
  last_message_at: timestamp('last_message_at'),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
  archived_at: timestamp('archived_at'),
  frozen_at: timestamp('frozen_at'),
  frozen_by: column('frozen_by'),
  shared_at: timestamp('shared_at'),
};

// The relations of a session, from its own workspace only (as the joins primed into the loaders).
const projectOf = (s: string, p: string) => `projects ${p} WHERE ${p}.id = ${s}.project_id AND ${p}.workspace_id = ${s}.workspace_id`;
const related = (from: (s: string, as: string) => string): SqlObject => ({ kind: 'object', from });
const owner = related((s, u) => `users ${u} WHERE ${u}.id = ${s}.user_id`);

/** The session fields of sessions.resolver.ts (usage, recent_message_count and messages are left to it). */
const SESSION_FIELDS: Record<string, SqlField> = {
  ...SESSION_SQL,
  project_key: expression((s) => `(SELECT sp.key FROM ${projectOf(s, 'sp')})`),
  project_name: expression((s) => `(SELECT sp.name FROM ${projectOf(s, 'sp')})`),
  group: related((s, g) => `session_groups ${g} WHERE ${g}.id = ${s}.group_id AND ${g}.workspace_id = ${s}.workspace_id`),
  created_by: owner,
  creator: owner,
  shared_by: related((s, u) => `users ${u} WHERE ${u}.id = ${s}.shared_by`),
  project: related(projectOf),
};

/** What the sessions module describes in SQL (see core/graphql-sql). */
export const SESSIONS_SQL: SqlSchemaPart = {
  types: {
    SessionResponse: SESSION_FIELDS,
    SessionCreatorResponse: USER_IDENTITY_SQL,
    WorkspaceResponse: { sessions: childSessionsSql('workspace') },
    SessionGroupSummary: { sessions: childSessionsSql('group') },
  },
};

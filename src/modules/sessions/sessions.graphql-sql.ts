import { aggregate, expression, related, type SqlList } from '../../core/graphql-sql/sql-fields';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import { lastGenerationSql, RECENT_COUNT, USAGE_AGGREGATE } from './session-usage';
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
 * parent row, newest first, the limit as the engine brought it into the
 * field's range (@ChildLimit), as the resolvers get it.
 */
export function childSessionsSql(parent: keyof typeof CHILD_SESSIONS): SqlList {
  const { column: parentColumn, condition } = CHILD_SESSIONS[parent];
  return {
    kind: 'list',
    rows(row, as, args, params, ctx) {
      if (!ctx.viewer) return null;
      const tenant = tenantFilter(ctx.viewer);
      params.named(tenant.bind);
      // Brought into the field's range by the engine, as @ChildLimit brings the resolver's.
      const limit = params.add(Number(args.limit));
      return {
        select: `SELECT ${as}.* FROM sessions ${as}
          WHERE ${as}.${parentColumn} = ${row}.id AND ${condition(as)} AND ${visibleSql(as)} AND ${tenant.where(as)}
          ORDER BY ${NEWEST(as)} LIMIT ${limit}`,
        orderBy: NEWEST(as),
      };
    },
  };
}

// The relations of a session, from its own workspace only (as the loaders, bound to the organization, read them).
const projectOf = (s: string, p: string) => `projects ${p} WHERE ${p}.id = ${s}.project_id AND ${p}.workspace_id = ${s}.workspace_id`;

/** The SQL of the session fields its resolvers answer from other rows (declared beside them with @Sql). */
export const SESSION_RELATIONS = {
  project_key: expression((s) => `(SELECT sp.key FROM ${projectOf(s, 'sp')})`),
  project_name: expression((s) => `(SELECT sp.name FROM ${projectOf(s, 'sp')})`),
  project: related(projectOf),
  group: related((s, g) => `session_groups ${g} WHERE ${g}.id = ${s}.group_id AND ${g}.workspace_id = ${s}.workspace_id`),
  owner: related((s, u) => `users ${u} WHERE ${u}.id = ${s}.user_id`),
  shared_by: related((s, u) => `users ${u} WHERE ${u}.id = ${s}.shared_by`),
  // The usage aggregate of the session's messages (its own organization's only, as the tenant-bound loader).
  usage: aggregate((s, st) => `(SELECT ${USAGE_AGGREGATE}, (${lastGenerationSql(`${s}.id`, `${s}.organization_id`)}) AS last_generation_input_tokens
      FROM session_messages m WHERE m.session_id = ${s}.id AND m.organization_id = ${s}.organization_id) ${st}`),
  recent_message_count: expression((s) => `(SELECT ${RECENT_COUNT} FROM session_messages m WHERE m.session_id = ${s}.id AND m.organization_id = ${s}.organization_id)`),
};

import { Op, type Transaction } from 'sequelize';
import { SessionModel, type RecordOf } from '../../../models';
import { plainQuery } from '../../db/hot';
import { sessionOfRow } from './session-relations';
import { asksForEvents } from './sessions.inputs';
import { visibleSql, visibleWhere } from './session.policy';
import type { SqlRoot } from '../../core/graphql-sql/sql-fields';
import type { AppContext } from '../../core/context';
import { ConflictError, NotFoundError, validationFailure } from '../../core/errors';
import { idRange } from '../../core/id-prefix';
import { resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';

/**
 * Session references in paths: a full UUID (any case) or a prefix of 4+
 * characters of the lower-case form, among the caller's visible sessions of
 * the workspace (none 404, several 409).
 */
/** 422 before any lookup: a reference shorter than 4 characters. */
export function checkSessionRef(ref: string): void {
  if (ref.length < 4) throw validationFailure(['session_id'], 'String should have at least 4 characters', 'string_too_short');
}

/** The workspace of a request that names a session: the reference is checked (422) before the tenant (404). */
export async function resolveSessionWorkspace(ctx: AppContext, org: string, ws: string, ref: string): Promise<WorkspaceScope> {
  checkSessionRef(ref);
  return resolveWorkspace(ctx, org, ws);
}

/** The one session a reference names among the caller's visible sessions of the workspace; locked when in a transaction. */
export async function findSession(scope: WorkspaceScope, ref: string, transaction?: Transaction): Promise<SessionModel> {
  const range = idRange(ref);
  if (!range) throw new NotFoundError('Session');
  const rows = await SessionModel.findAll({
    where: {
      workspace_id: scope.workspace.id,
      id: range[0] === range[1] ? range[0] : { [Op.between]: range },
      ...visibleWhere(scope.viewer.user.id),
    },
    limit: 2,
    transaction,
    lock: transaction ? transaction.LOCK.UPDATE : undefined,
  });
  return theOne(rows, ref);
}

/** None is 404, several (a shared prefix) 409. */
function theOne<T>(rows: T[], ref: string): T {
  if (rows.length === 0) throw new NotFoundError('Session');
  if (rows.length > 1) throw new ConflictError(`Session id prefix '${ref}' matches more than one session; use more characters`);
  return rows[0];
}

/**
 * The session a reference names, as `FROM … WHERE … LIMIT 2` over alias `as`
 * with its parameters (named `$workspace_id`, `$id_from`, `$id_to`,
 * `$viewer_id`): the reference's id range among the caller's visible
 * sessions of the workspace; 404 when it cannot name any id. LIMIT 2 also
 * makes the generic plan walk the primary key for the id range instead of
 * AND-ing it with a bitmap of the whole workspace's sessions.
 */
function referenceFrom(scope: WorkspaceScope, ref: string, as: string): { from: string; bind: Record<string, unknown> } {
  const range = idRange(ref);
  if (!range) throw new NotFoundError('Session');
  return {
    from: `sessions ${as} WHERE ${as}.workspace_id = $workspace_id AND ${as}.id BETWEEN $id_from AND $id_to AND ${visibleSql(as, '$viewer_id')} LIMIT 2`,
    bind: { workspace_id: scope.workspace.id, id_from: range[0], id_to: range[1], viewer_id: scope.viewer.user.id },
  };
}

/** A read of one session by reference in one named statement (its relations resolve through the loaders). */
export async function readSession(scope: WorkspaceScope, ref: string): Promise<RecordOf<SessionModel>> {
  const { from, bind } = referenceFrom(scope, ref, 's');
  const rows = await plainQuery<Record<string, unknown>>(`SELECT to_json(s) AS "s" FROM ${from}`, bind, { prepare: 'session_read' });
  return sessionOfRow(theOne(rows, ref));
}

/**
 * The session a reference names, as the compiled reply's root (SqlRoot of
 * `session`): the reference checked (422) and the tenant resolved as the
 * resolver does, then the reference's id range among the caller's visible
 * sessions of the workspace. None leaves the reply to the resolver (404),
 * several make the statement fail and the resolver answer 409.
 */
export const SESSION_ROOT: SqlRoot = {
  // A read that asks for events (their messages are read in node) is the resolvers'.
  compiles: (args) => !asksForEvents(args),
  async from(ctx, args, params, as) {
    const ref = String(args.session_id);
    const { from, bind } = referenceFrom(await resolveSessionWorkspace(ctx, String(args.org), String(args.workspace), ref), ref, as);
    params.named(bind);
    return from;
  },
};

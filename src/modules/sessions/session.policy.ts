import { Op, type WhereOptions } from 'sequelize';
import type { SessionModel, UserRecord } from '../../../models';
import { requireScope, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { ForbiddenError } from '../../core/errors';

/**
 * Who may see and change a session (decisions §5):
 * - a session is visible to its owner, and to every member of its workspace once shared;
 * - archive and unarchive are open to any writer who can see it;
 * - every other write (save, update, freeze, delete, transcript) is the owner's;
 * - visibility only goes private → workspace.
 */
export const SESSION_WRITE_SCOPE = 'resources:write' as const;

const OWNER = 'user_id';
const SHARED = { column: 'visibility', value: 'workspace' } as const;

/** Who may see a session, as one rule written for each way a read reaches the rows (below). */
export function isVisible(session: SessionModel, viewer: UserRecord): boolean {
  return session[OWNER] === viewer.id || session[SHARED.column] === SHARED.value;
}

/** The rule in SQL, on a sessions alias; `viewer` is the parameter holding the viewer's user id (tenantFilter's `$tenant_user` by default). */
export function visibleSql(alias: string, viewer = '$tenant_user'): string {
  return `(${alias}.${OWNER} = ${viewer} OR ${alias}.${SHARED.column} = '${SHARED.value}')`;
}

/** The rule as a Sequelize where clause. */
export function visibleWhere(viewerId: string): WhereOptions {
  return { [Op.or]: [{ [OWNER]: viewerId }, { [SHARED.column]: SHARED.value }] };
}

/** Writes other than archive/unarchive are the owner's (readers write nothing). */
export function requireOwnerWrite(scope: WorkspaceScope, session: SessionModel): void {
  requireScope(scope, SESSION_WRITE_SCOPE);
  if (session.user_id !== scope.viewer.user.id) throw new ForbiddenError('Only the owner of the session can change it');
}

/** Visibility only goes private → workspace; sharing records when and by whom. */
export function setVisibility(session: SessionModel, visibility: 'private' | 'workspace', userId: string, now: Date): void {
  if (visibility === session.visibility) return;
  if (visibility === 'private') throw new ForbiddenError('A shared session cannot be made private again');
  session.visibility = 'workspace';
  session.shared_at = now;
  session.shared_by = userId;
}

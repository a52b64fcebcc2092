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

export function isVisible(session: SessionModel, viewer: UserRecord): boolean {
  return session.user_id === viewer.id || session.visibility === 'workspace';
}

/** The same rule in SQL, on a sessions alias; binds `$tenant_user` (tenantFilter's). */
export function visibleSql(alias: string): string {
  return `(${alias}.user_id = $tenant_user OR ${alias}.visibility = 'workspace')`;
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

import { OrganizationModel, WorkspaceModel, type Role } from '../../../models';
import { database } from '../../db/database';
import { requireViewer, type AppContext } from '../../context/context';
import type { Viewer } from '../../context/viewer';
import { ForbiddenError, NotFoundError } from '../errors';
import { roleHasScope, type Scope } from './scopes';

/**
 * Tenant checks shared by every service: organization membership first (404
 * for anything the caller may not see), then the role's scopes (403).
 */
export interface OrgAccess {
  viewer: Viewer;
  org: OrganizationModel;
  role: Role;
}

export interface WorkspaceAccess extends OrgAccess {
  workspace: WorkspaceModel;
}

/** The organization and the caller's role in it, in one statement; null when not a member. */
const ORG_WITH_ROLE = `
  SELECT o.*, m.role AS member_role
    FROM organizations o
    JOIN memberships m ON m.organization_id = o.id AND m.user_id = :user_id
   WHERE o.key = :key`;

export async function orgAccess(ctx: AppContext, orgKey: string): Promise<OrgAccess> {
  const viewer = requireViewer(ctx);
  const [org] = await database().query(ORG_WITH_ROLE, {
    replacements: { key: orgKey, user_id: viewer.user.id },
    model: OrganizationModel,
    mapToModel: true,
  });
  if (!org || (viewer.apiKey?.organization_id && viewer.apiKey.organization_id !== org.id)) {
    throw new NotFoundError('Organization');
  }
  ctx.loaders.organizationById.prime(org.id, org);
  return { viewer, org, role: org.getDataValue('member_role' as never) as Role };
}

export async function workspaceAccess(ctx: AppContext, orgKey: string, workspaceKey: string): Promise<WorkspaceAccess> {
  const access = await orgAccess(ctx, orgKey);
  const workspace = await WorkspaceModel.findOne({ where: { organization_id: access.org.id, key: workspaceKey } });
  if (!workspace || !workspaceAllowed(access.viewer, workspace.id)) throw new NotFoundError('Workspace');
  return { ...access, workspace };
}

/** An API key limited to one workspace sees no other. */
export function workspaceAllowed(viewer: Viewer, workspaceId: string): boolean {
  return !viewer.apiKey?.workspace_id || viewer.apiKey.workspace_id === workspaceId;
}

export function can(access: OrgAccess, scope: Scope): boolean {
  return roleHasScope(access.role, scope) && keyAllows(access.viewer, scope);
}

/** An API key's own scope list narrows every role; JWTs and unscoped keys allow all. */
export function keyAllows(viewer: Viewer, scope: Scope): boolean {
  const allowed = viewer.apiKey?.allowed_scopes;
  return !allowed || allowed.includes(scope);
}

/** A key limited to an organization, a workspace or a scope list. */
export function isLimitedKey(viewer: Viewer): boolean {
  const key = viewer.apiKey;
  return Boolean(key && (key.organization_id || key.workspace_id || key.allowed_scopes));
}

export function requireScope(access: OrgAccess, scope: Scope): void {
  if (!can(access, scope)) throw new ForbiddenError(`Your role does not allow this action (${scope})`);
}

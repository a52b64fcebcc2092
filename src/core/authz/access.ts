import { MembershipModel, OrganizationModel, WorkspaceModel, type Role } from '../../../models';
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

export async function orgAccess(ctx: AppContext, orgKey: string): Promise<OrgAccess> {
  const viewer = requireViewer(ctx);
  const org = await OrganizationModel.findOne({ where: { key: orgKey } });
  if (!org || (viewer.apiKey?.organization_id && viewer.apiKey.organization_id !== org.id)) {
    throw new NotFoundError('Organization');
  }
  const membership = await MembershipModel.findOne({ where: { organization_id: org.id, user_id: viewer.user.id } });
  if (!membership) throw new NotFoundError('Organization');
  return { viewer, org, role: membership.role };
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

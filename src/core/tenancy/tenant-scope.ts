import { QueryTypes } from 'sequelize';
import { OrganizationModel, WorkspaceModel, type Role } from '../../../models';
import { database } from '../../db/database';
import { modelFromRow, prefixedColumns } from '../../db/rows';
import { requireViewer, type AppContext } from '../context';
import type { AccessPolicy, Scope } from '../authz/scopes';
import type { OrgScope, TenantScope, WorkspaceScope } from './scope';
import { ForbiddenError, NotFoundError } from '../errors';
import type { Viewer } from '../viewer';

/**
 * The tenancy kit: every organization- or workspace-scoped service starts by
 * resolving `{org}` / `{workspace}` into a scope here, and asks the scope
 * for permissions. API-key limits (organization, workspace, scope list) are
 * enforced here and nowhere else.
 *
 * The order of checks, the same on REST and GraphQL:
 *   1. 401  authentication        requireViewer (root-field guard, before arguments)
 *   2. 422  request validation    input types and class-validator rules, before the resolver
 *   3. 404  tenant and resource   resolveOrg / resolveWorkspace, then the service's look-up
 *           (anything of another tenant, or outside an API key's limits, is "not found")
 *   4. 403  role and key scopes   requireScope / requireUnrestrictedKey
 *   5. 409  state conflicts       the service's business rules and unique constraints
 */

/** Organization, the caller's membership and (when asked) the workspace, in one statement. */
let resolveSql: string | undefined;
function resolveStatement(): string {
  resolveSql ??= `
    SELECT m.role AS "role", ${prefixedColumns(OrganizationModel, 'o')}, ${prefixedColumns(WorkspaceModel, 'w')}
      FROM organizations o
      JOIN memberships m ON m.organization_id = o.id AND m.user_id = $user_id
      LEFT JOIN workspaces w ON w.organization_id = o.id AND w.key = $workspace_key
     WHERE o.key = $org_key`;
  return resolveSql;
}

interface ResolvedRow {
  role: Role;
  o: Record<string, unknown>;
  w: Record<string, unknown>;
}

async function resolve(ctx: AppContext, orgKey: string, workspaceKey: string | null): Promise<TenantScope> {
  const viewer = requireViewer(ctx);
  const [row] = await database().query<ResolvedRow>(resolveStatement(), {
    bind: { user_id: viewer.user.id, org_key: orgKey, workspace_key: workspaceKey },
    type: QueryTypes.SELECT,
    nest: true,
  });
  const org = modelFromRow(OrganizationModel, row?.o);
  const limits = viewer.apiKey;
  if (!org || (limits?.organization_id && limits.organization_id !== org.id)) throw new NotFoundError('Organization');
  const scope: TenantScope = { viewer, org, role: row.role, policy: ctx.policy, workspace: modelFromRow(WorkspaceModel, row.w) };
  ctx.tenant = scope;
  return scope;
}

/** The caller's organization `{org}`: 404 when not a member or outside the API key's organization. */
export function resolveOrg(ctx: AppContext, orgKey: string): Promise<OrgScope> {
  return resolve(ctx, orgKey, null);
}

/** `{org}/ws/{workspace}`: 404 for a workspace that does not exist or lies outside the API key's workspace. */
export async function resolveWorkspace(ctx: AppContext, orgKey: string, workspaceKey: string): Promise<WorkspaceScope> {
  const scope = await resolve(ctx, orgKey, workspaceKey);
  if (!scope.workspace || !workspaceAllowed(scope.viewer, scope.workspace.id)) throw new NotFoundError('Workspace');
  return scope as WorkspaceScope;
}

/** An API key limited to one workspace sees no other. */
export function workspaceAllowed(viewer: Viewer, workspaceId: string): boolean {
  return !viewer.apiKey?.workspace_id || viewer.apiKey.workspace_id === workspaceId;
}

/** The role grants the scope (whatever the credential). */
export function roleAllows(scope: OrgScope, name: Scope): boolean {
  return scope.policy.roleHas(scope.role, name);
}

/**
 * The credential allows the scope: an API key's scope list narrows every
 * role, and a workspace-limited key never acts on the whole organization.
 */
export function keyAllows(viewer: Viewer, policy: AccessPolicy, name: Scope): boolean {
  const key = viewer.apiKey;
  if (!key) return true;
  if (key.allowed_scopes && !key.allowed_scopes.includes(name)) return false;
  return !(key.workspace_id && policy.isOrgWide(name));
}

export function can(scope: OrgScope, name: Scope): boolean {
  return roleAllows(scope, name) && keyAllows(scope.viewer, scope.policy, name);
}

export function requireScope(scope: OrgScope, name: Scope): void {
  if (can(scope, name)) return;
  if (roleAllows(scope, name) && scope.viewer.apiKey?.workspace_id && scope.policy.isOrgWide(name)) {
    throw new ForbiddenError(`An API key limited to one workspace cannot act on the whole organization (${name})`);
  }
  throw new ForbiddenError(`Your role does not allow this action (${name})`);
}

/** A key limited to an organization, a workspace or a scope list. */
export function isLimitedKey(viewer: Viewer): boolean {
  const key = viewer.apiKey;
  return Boolean(key && (key.organization_id || key.workspace_id || key.allowed_scopes));
}

/** Actions on the account itself (its keys, its memberships) need a JWT or an unrestricted key. */
export function requireUnrestrictedKey(viewer: Viewer, detail: string): void {
  if (isLimitedKey(viewer)) throw new ForbiddenError(detail);
}

export type { OrgScope, TenantScope, WorkspaceScope };

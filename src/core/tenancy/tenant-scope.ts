import type { OrganizationRecord, Role, WorkspaceRecord } from '../../../models';
import { nestRow, plainQuery, present } from '../../db/hot';
import { requireViewer, type AppContext } from '../context';
import type { AccessPolicy, Scope } from '../authz/scopes';
import { ForbiddenError, NotFoundError } from '../errors';
import type { Viewer } from '../viewer';
import type { OrgScope, PrefetchedScope, ScopeHint, TenantScope, WorkspaceScope } from './scope';

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
 *
 * On REST the route's keys are known before the context is made, and a
 * GraphQL query names them in its variables `org` and `workspace` (the
 * dashboards' documents do): the authenticator reads them with the credential
 * in one statement (`scopeJoinSql`), and resolving costs nothing. Other keys
 * (and every mutation, whose later fields must see what earlier ones changed)
 * are resolved here with one named statement.
 */
const ORG_COLUMNS = [
  'id', 'key', 'name', 'description', 'is_active', 'is_personal', 'plan_type', 'max_members',
  'max_sandbox_runtime_seconds', 'default_sandbox_runtime_seconds', 'created_at', 'updated_at',
];
const WORKSPACE_COLUMNS = ['id', 'organization_id', 'key', 'name', 'description', 'is_active', 'is_default', 'created_by', 'created_at', 'updated_at'];

const prefixed = (alias: string, columns: string[]) => columns.map((column) => `${alias}.${column} AS "${alias}.${column}"`).join(', ');

/** An organization's columns under `alias` (`o.id AS "o.id"`, …), nested back by `nest: true` or nestRow. */
export const organizationColumns = (alias: string) => prefixed(alias, ORG_COLUMNS);

/**
 * The select list and joins that resolve a hint beside a user (alias `u`):
 * `$org` and `$workspace` name the statement's parameters for the two keys.
 */
export function scopeJoinSql(orgParam: string, workspaceParam: string): { select: string; joins: string } {
  return {
    select: `m.role AS "scope_role", ${prefixed('o', ORG_COLUMNS)}, ${prefixed('w', WORKSPACE_COLUMNS)}`,
    joins: `LEFT JOIN organizations o ON o.key = ${orgParam}
            LEFT JOIN memberships m ON m.organization_id = o.id AND m.user_id = u.id
            LEFT JOIN workspaces w ON w.organization_id = o.id AND w.key = ${workspaceParam}`,
  };
}

/** The scope part of a row selected with scopeJoinSql, once nested (nestRow). */
export function prefetchedScope(hint: ScopeHint, nested: ReturnType<typeof nestRow>): PrefetchedScope {
  return {
    hint,
    org: present<OrganizationRecord>(nested.o),
    role: (nested.scope_role as unknown as Role | null) ?? null,
    workspace: present<WorkspaceRecord>(nested.w),
  };
}

const RESOLVE_SQL = `
  SELECT m.role AS "scope_role", ${prefixed('o', ORG_COLUMNS)}, ${prefixed('w', WORKSPACE_COLUMNS)}
    FROM organizations o
    JOIN memberships m ON m.organization_id = o.id AND m.user_id = $user_id
    LEFT JOIN workspaces w ON w.organization_id = o.id AND w.key = $workspace
   WHERE o.key = $org`;

async function lookUp(ctx: AppContext, viewer: Viewer, orgKey: string, workspaceKey: string | null): Promise<PrefetchedScope> {
  const prefetched = ctx.prefetched;
  if (prefetched && prefetched.hint.org === orgKey && (workspaceKey === null || prefetched.hint.workspace === workspaceKey)) {
    return workspaceKey === null ? { ...prefetched, workspace: null } : prefetched;
  }
  const [row] = await plainQuery<Record<string, unknown>>(RESOLVE_SQL, { user_id: viewer.user.id, org: orgKey, workspace: workspaceKey }, { prepare: 'tenancy_resolve' });
  return row ? prefetchedScope({ org: orgKey, workspace: workspaceKey }, nestRow(row)) : { hint: { org: orgKey, workspace: workspaceKey }, org: null, role: null, workspace: null };
}

async function resolve(ctx: AppContext, orgKey: string, workspaceKey: string | null): Promise<TenantScope> {
  const viewer = requireViewer(ctx);
  // No key holds a NUL character, and PostgreSQL refuses one as a parameter.
  if (orgKey.includes('\0')) throw new NotFoundError('Organization');
  if (workspaceKey?.includes('\0')) throw new NotFoundError('Workspace');
  const found = await lookUp(ctx, viewer, orgKey, workspaceKey);
  const limits = viewer.apiKey;
  if (!found.org || !found.role || (limits?.organization_id && limits.organization_id !== found.org.id)) throw new NotFoundError('Organization');
  const scope: TenantScope = { viewer, org: found.org, role: found.role, policy: ctx.policy, workspace: found.workspace };
  ctx.tenant = scope;
  return scope;
}

/** The caller's organization `{org}`: 404 when not a member or outside the API key's organization. */
export function resolveOrg(ctx: AppContext, orgKey: string): Promise<OrgScope> {
  return resolve(ctx, orgKey, null);
}

/**
 * `{org}` for the organization's members, invitations and chat integration:
 * an API key limited to one workspace sees none of them (decisions §2: a
 * limited key sees nothing else), so 404 as for another tenant. (Its
 * catalogs and its own record stay readable to such a key: the SDK reads
 * them.)
 */
export async function resolveWholeOrg(ctx: AppContext, orgKey: string): Promise<OrgScope> {
  const scope = await resolve(ctx, orgKey, null);
  if (scope.viewer.apiKey?.workspace_id) throw new NotFoundError('Organization');
  return scope;
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

import type { OrganizationRecord, Role, WorkspaceRecord } from '../../../models';
import type { AccessPolicy } from '../authz/scopes';
import type { Viewer } from '../viewer';

/** What `{org}` / `{workspace}` of a request resolved to (tenant-scope.ts resolves and checks it). */
export interface OrgScope {
  viewer: Viewer;
  org: OrganizationRecord;
  role: Role;
  policy: AccessPolicy;
  workspace: WorkspaceRecord | null;
}

export interface WorkspaceScope extends OrgScope {
  workspace: WorkspaceRecord;
}

export type TenantScope = OrgScope | WorkspaceScope;

/** The `{org}` / `{workspace}` keys of a REST route, known before the context is made. */
export interface ScopeHint {
  org: string;
  workspace: string | null;
}

/**
 * The organization, membership and workspace of a hint, read by the
 * authenticator in the same statement as the credential: the request's
 * resolveOrg / resolveWorkspace then run no statement of their own.
 * `role` is null when the caller is not a member.
 */
export interface PrefetchedScope {
  hint: ScopeHint;
  org: OrganizationRecord | null;
  role: Role | null;
  workspace: WorkspaceRecord | null;
}

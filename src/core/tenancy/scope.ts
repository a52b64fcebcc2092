import type { OrganizationModel, Role, WorkspaceModel } from '../../../models';
import type { AccessPolicy } from '../authz/scopes';
import type { Viewer } from '../viewer';

/** What `{org}` / `{workspace}` of a request resolved to (tenant-scope.ts resolves and checks it). */
export interface OrgScope {
  viewer: Viewer;
  org: OrganizationModel;
  role: Role;
  policy: AccessPolicy;
  workspace: WorkspaceModel | null;
}

export interface WorkspaceScope extends OrgScope {
  workspace: WorkspaceModel;
}

export type TenantScope = OrgScope | WorkspaceScope;

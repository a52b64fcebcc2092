import { WorkspaceModel } from '../../../models';
import { defineScopes, OWNER_ONLY, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { createWorkspaceLoaders } from './workspaces.loaders';
import { WorkspaceResolver } from './workspaces.resolver';

const SCOPES = defineScopes({
  'workspaces:create': { roles: WRITER_ROLES, orgWide: true },
  'workspaces:update': { roles: OWNER_ONLY },
  // A workspace's key is its address for every member, and a taken one is 409: a key limited to the workspace,
  // which sees nothing else of the organization, would learn the other workspaces' keys from it.
  'workspaces:rekey': { roles: WRITER_ROLES, orgWide: true },
});

/** Workspaces of an organization. */
export const workspacesModule: AppModule = {
  name: 'workspaces',
  resolvers: [WorkspaceResolver],
  models: [WorkspaceModel],
  loaders: createWorkspaceLoaders,
  scopes: SCOPES,
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

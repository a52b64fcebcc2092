import { WorkspaceModel } from '../../../models';
import { defineScopes, OWNER_ONLY, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { createWorkspaceLoaders } from './workspaces.loaders';
import { WorkspaceResolver } from './workspaces.resolver';

const SCOPES = defineScopes({
  'workspaces:create': { roles: WRITER_ROLES, orgWide: true },
  'workspaces:update': { roles: OWNER_ONLY },
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

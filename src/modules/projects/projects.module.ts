import { ProjectModel } from '../../../models';
import { defineScopes, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { createProjectLoaders } from './projects.loaders';
import { ProjectResolver, WorkspaceProjectsResolver } from './projects.resolver';

const SCOPES = defineScopes({
  'projects:write': { roles: WRITER_ROLES },
  // Writing the resources that live in a workspace's projects (sessions, groups, evaluations, …).
  'resources:write': { roles: WRITER_ROLES },
});

/** Projects of a workspace; other modules add their per-project resource counts in their own descriptors. */
export const projectsModule: AppModule = {
  name: 'projects',
  resolvers: [ProjectResolver, WorkspaceProjectsResolver],
  models: [ProjectModel],
  loaders: createProjectLoaders,
  scopes: SCOPES,
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

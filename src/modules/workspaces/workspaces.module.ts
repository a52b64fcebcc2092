import { WorkspaceModel } from '../../../models';
import { defineScopes, OWNER_ONLY, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { column, columns, expression, timestamp } from '../../core/graphql-sql/sql-fields';
import { createWorkspaceLoaders } from './workspaces.loaders';
import { WorkspaceResolver } from './workspaces.resolver';
import { getWorkspace } from './workspaces.service';

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
  // toWorkspace and org_name in SQL (core/graphql-sql); project_count and projects are left to the resolvers.
  sql: {
    types: {
      WorkspaceResponse: {
        ...columns('id', 'key', 'name', 'description', 'is_active', 'is_default', 'created_by'),
        org_id: column('organization_id'),
        org_name: expression((w) => `(SELECT wo.name FROM organizations wo WHERE wo.id = ${w}.organization_id)`),
        created_at: timestamp('created_at'),
        updated_at: timestamp('updated_at'),
      },
    },
    roots: {
      // The resolver's own check (membership, API key scope), then the row it found.
      workspace: {
        async from(ctx, args, params, as) {
          const workspace = await getWorkspace(ctx, String(args.org), String(args.workspace));
          return `workspaces ${as} WHERE ${as}.id = ${params.add(workspace.id)}`;
        },
      },
    },
  },
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

import { WorkflowRunModel } from '../../../models';
import { defineScopes, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { createWorkflowRunLoaders } from './workflow-runs.loaders';
import { ProjectWorkflowRunsResolver, WorkflowRunResolver } from './workflow-runs.resolver';

const SCOPES = defineScopes({
  // Create, start and cancel workflow runs.
  'workflows:write': { roles: WRITER_ROLES },
});

/** Workflow runs of a project: create, list, start, cancel (race-free status moves). */
export const workflowRunsModule: AppModule = {
  name: 'workflow-runs',
  resolvers: [WorkflowRunResolver, ProjectWorkflowRunsResolver],
  models: [WorkflowRunModel],
  loaders: createWorkflowRunLoaders,
  scopes: SCOPES,
  projectCounts: [{ field: 'workflow_runs', noun: 'workflow runs', sql: 'SELECT count(*) FROM workflow_runs r WHERE r.project_id = p.id' }],
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

import { buildPlatform, type AppModule } from '../core/module';
import { accountsModule } from './accounts/accounts.module';
import { apiKeysModule } from './api-keys/api-keys.module';
import { catalogsModule } from './catalogs/catalogs.module';
import { assessmentsModule } from './assessments/assessments.module';
import { evaluationsModule } from './evaluations/evaluations.module';
import { integrationsModule } from './integrations/integrations.module';
import { mailModule } from './mail/mail.module';
import { membersModule } from './members/members.module';
import { organizationsModule } from './organizations/organizations.module';
import { projectsModule } from './projects/projects.module';
import { secretsModule } from './secrets/secrets.module';
import { sessionGroupsModule } from './session-groups/session-groups.module';
import { sessionsModule } from './sessions/sessions.module';
import { tracesModule } from './traces/traces.module';
import { workflowRunsModule } from './workflow-runs/workflow-runs.module';
import { workspacesModule } from './workspaces/workspaces.module';

/**
 * The module registry: every domain, listed once. The schema's resolvers,
 * the model list, the per-request loaders, the scopes and roles, the
 * error-type table, the project resource counts and the authenticators are
 * all built from this list. Adding a domain = its folder + one line here.
 */
export const MODULES: readonly AppModule[] = [
  accountsModule,
  apiKeysModule,
  secretsModule,
  mailModule,
  organizationsModule,
  workspacesModule,
  membersModule,
  projectsModule,
  integrationsModule,
  sessionsModule,
  sessionGroupsModule,
  catalogsModule,
  assessmentsModule,
  workflowRunsModule,
  evaluationsModule,
  tracesModule,
];

export const platform = buildPlatform(MODULES);

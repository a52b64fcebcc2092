import { AssessmentModel, AttackSpanModel } from '../../../models';
import { defineScopes, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { createAssessmentLoaders } from './assessments.loaders';
import { AssessmentResolver, ProjectAssessmentsResolver } from './assessments.resolver';
import { AssessmentReportResolver } from './reports.resolver';
import { AssessmentTrialsResolver } from './trials';

const SCOPES = defineScopes({
  // Create, update, delete assessments and ingest their attack spans.
  'airt:write': { roles: WRITER_ROLES },
});

/** Red-team assessments (path segment `airt`) with attack-span ingest and risk analytics. */
export const assessmentsModule: AppModule = {
  name: 'assessments',
  resolvers: [AssessmentResolver, ProjectAssessmentsResolver, AssessmentTrialsResolver, AssessmentReportResolver],
  models: [AssessmentModel, AttackSpanModel],
  loaders: createAssessmentLoaders,
  scopes: SCOPES,
  projectCounts: [{ field: 'airt_assessments', noun: 'assessments', sql: 'SELECT count(*) FROM airt_assessments r WHERE r.project_id = p.id' }],
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

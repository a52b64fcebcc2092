import type { ErrorTypeNames } from '../../core/errors';
import type { AppModule } from '../../core/module';
import { createEvaluationLoaders } from './evaluations.loaders';
import { EvaluationItemResolver, EvaluationResolver } from './evaluations.resolver';
import { ProjectEvaluationsResolver } from './project-evaluations.resolver';

const ERROR_TYPES = ['task_set_not_found'] as const;

/**
 * Evaluation jobs of a workspace: items driven through their state machine, live counters, analytics.
 * No Sequelize model: every read and write is a statement of evaluations.service.ts (bulk item
 * inserts, conditional counter moves), so a partial model would only be a second, stale description.
 */
export const evaluationsModule: AppModule = {
  name: 'evaluations',
  resolvers: [EvaluationResolver, EvaluationItemResolver, ProjectEvaluationsResolver],
  loaders: createEvaluationLoaders,
  errorTypes: ERROR_TYPES,
  projectCounts: [{ field: 'evaluations', noun: 'evaluations', sql: 'SELECT count(*) FROM evaluations r WHERE r.project_id = p.id' }],
};

declare module '../../core/errors/app-error' {
  interface ErrorTypeRegistry extends ErrorTypeNames<typeof ERROR_TYPES> {}
}

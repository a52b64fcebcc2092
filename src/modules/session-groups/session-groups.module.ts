import { SessionGroupModel } from '../../../models';
import type { AppModule } from '../../core/module';
import { createSessionGroupLoaders } from './session-groups.loaders';
import { SessionGroupResolver } from './session-groups.resolver';

/** Session groups (workflows, worker runs, evaluation items) with counts derived from their sessions. */
export const sessionGroupsModule: AppModule = {
  name: 'session-groups',
  resolvers: [SessionGroupResolver],
  models: [SessionGroupModel],
  loaders: createSessionGroupLoaders,
  projectCounts: [{ field: 'session_groups', noun: 'session groups', sql: 'SELECT count(*) FROM session_groups r WHERE r.project_id = p.id' }],
};

import { SessionMessageModel, SessionModel } from '../../../models';
import type { AppModule } from '../../core/module';
import { createSessionLoaders } from './sessions.loaders';
import { SessionResolver } from './sessions.resolver';
import { WorkspaceSessionsResolver } from './workspace-sessions.resolver';
import { GroupSessionsResolver } from './group-sessions.resolver';

/** Agent chat sessions, their transcripts, usage, lists and facets. */
export const sessionsModule: AppModule = {
  name: 'sessions',
  resolvers: [SessionResolver, WorkspaceSessionsResolver, GroupSessionsResolver],
  models: [SessionModel, SessionMessageModel],
  loaders: createSessionLoaders,
  projectCounts: [{ field: 'sessions', noun: 'sessions', sql: 'SELECT count(*) FROM sessions r WHERE r.project_id = p.id' }],
};

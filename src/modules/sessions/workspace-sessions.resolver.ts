import { ChildLimit } from '../../core/graphql-decorators';
import { Ctx, Extensions, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { WorkspaceResponse } from '../workspaces/workspaces.types';
import { sessionOfRow } from './session-relations';
import { toSession } from './sessions.mapper';
import { SessionResponse } from './sessions.types';
import { Sql } from '../../core/graphql-sql/sql-fields';
import { childSessionsSql } from './sessions.graphql-sql';

/** `workspace.sessions` (GraphQL only): the sessions module owns the data, so it adds the field. */
@Resolver(() => WorkspaceResponse)
export class WorkspaceSessionsResolver {
  @FieldResolver(() => [SessionResponse], {
    description: "The caller's visible active sessions of the workspace (user origin), most recently updated first.",
  })
  @Extensions({ graphqlOnly: true })
  @Sql(childSessionsSql('workspace'))
  async sessions(
    @Root() workspace: WorkspaceResponse,
    @ChildLimit(20) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse[]> {
    const rows = await ctx.loaders.workspaceSessions.load({ parent_id: workspace.id, limit });
    return rows.map((row) => toSession(sessionOfRow(row)));
  }
}

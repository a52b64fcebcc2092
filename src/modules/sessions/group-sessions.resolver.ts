import { ChildLimit } from '../../core/graphql-decorators';
import { Ctx, Extensions, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { SessionGroupSummary } from '../session-groups/session-groups.types';
import { sessionOfRow } from './session-relations';
import { toSession } from './sessions.mapper';
import { SessionResponse } from './sessions.types';
import { Sql } from '../../core/graphql-sql/sql-fields';
import { childSessionsSql } from './sessions.graphql-sql';

/** `session_group.sessions` (GraphQL only): the sessions module owns the data, so it adds the field. */
@Resolver(() => SessionGroupSummary)
export class GroupSessionsResolver {
  @FieldResolver(() => [SessionResponse], { description: "The group's sessions visible to the caller, most recently updated first." })
  @Extensions({ graphqlOnly: true })
  @Sql(childSessionsSql('group'))
  async sessions(
    @Root() group: SessionGroupSummary,
    @ChildLimit(50) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse[]> {
    const rows = await ctx.loaders.groupSessions.load({ parent_id: group.id, limit });
    return rows.map((row) => toSession(sessionOfRow(row)));
  }
}

import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { withBaseCost } from '../../core/graphql-limits';
import { pageInfo } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { SessionGroupCreateRequest, SessionGroupListArgs, SessionGroupUpdateRequest } from './session-groups.inputs';
import { toSessionGroup } from './session-groups.mapper';
import { createSessionGroup, getSessionGroup, listSessionGroups, updateSessionGroup } from './session-groups.service';
import { SessionGroupListResponse, SessionGroupSummary } from './session-groups.types';

const GROUPS = '/org/:org/ws/:workspace/sessions/groups';
const TAGS = { tags: ['session-groups'] };

@Resolver(() => SessionGroupSummary)
export class SessionGroupResolver {
  @Query(() => SessionGroupListResponse, { description: 'List the session groups of a workspace, newest first.', complexity: withBaseCost(250, 20) })
  @Rest('GET', GROUPS, TAGS)
  async session_groups(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => SessionGroupListArgs) args: SessionGroupListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<SessionGroupListResponse> {
    const result = await listSessionGroups(ctx, org, workspace, args);
    return { groups: result.groups.map(toSessionGroup), ...pageInfo(result.total, result.page, result.limit) };
  }

  @Query(() => SessionGroupSummary, { nullable: true, description: 'Get one session group.' })
  @Rest('GET', `${GROUPS}/:group_id`, TAGS)
  async session_group(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('group_id', () => UUIDScalar, { description: "The session group's id." }) groupId: string,
    @Ctx() ctx: AppContext,
  ): Promise<SessionGroupSummary> {
    return toSessionGroup(await getSessionGroup(ctx, org, workspace, groupId));
  }

  @Mutation(() => SessionGroupSummary, { description: 'Create a session group (spec 3).' })
  @Rest('POST', GROUPS, { status: 201, ...TAGS })
  async create_session_group(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('input', () => SessionGroupCreateRequest, { description: 'The new group.' }) input: SessionGroupCreateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<SessionGroupSummary> {
    return toSessionGroup(await createSessionGroup(ctx, org, workspace, input));
  }

  @Mutation(() => SessionGroupSummary, { description: 'Update the title or status of a session group.' })
  @Rest('PATCH', `${GROUPS}/:group_id`, TAGS)
  async update_session_group(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('group_id', () => UUIDScalar, { description: "The session group's id." }) groupId: string,
    @Arg('input', () => SessionGroupUpdateRequest, { description: 'The changes.' }) input: SessionGroupUpdateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<SessionGroupSummary> {
    return toSessionGroup(await updateSessionGroup(ctx, org, workspace, groupId, input));
  }
}

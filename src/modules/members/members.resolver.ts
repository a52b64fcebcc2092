import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { ListPageArgs } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { UpdateMemberInput } from './members.inputs';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { listMembers, removeMember, updateMember } from './members.service';
import { MemberRemovedResponse, MemberResponse } from './members.types';

@Resolver(() => MemberResponse)
export class MemberResolver {
  @Query(() => [MemberResponse], { description: 'List the members of an organization (any member may list).' })
  @Rest('GET', '/org/:org/members', { tags: ['members'] })
  async members(
    @Arg('org', () => String) org: string,
    @Args(() => ListPageArgs) page: ListPageArgs,
    @Ctx() ctx: AppContext,
  ): Promise<MemberResponse[]> {
    return (await listMembers(ctx, org, page)).map((member) => fromRow(MemberResponse, member));
  }

  @Mutation(() => MemberResponse, { description: "Change a member's role (owner only; the last owner cannot be demoted)." })
  @Rest('PATCH', '/org/:org/members/:user_id', { tags: ['members'] })
  async update_member(
    @Arg('org', () => String) org: string,
    @Arg('user_id', () => UUIDScalar, { description: "The member's user id." }) userId: string,
    @Arg('input', () => UpdateMemberInput, { description: 'The new role.' }) input: UpdateMemberInput,
    @Ctx() ctx: AppContext,
  ): Promise<MemberResponse> {
    return fromRow(MemberResponse, await updateMember(ctx, org, userId, input));
  }

  @Mutation(() => MemberRemovedResponse, { description: 'Remove a member (owner, or the member themselves; the last owner cannot leave).' })
  @Rest('DELETE', '/org/:org/members/:user_id', { tags: ['members'] })
  remove_member(
    @Arg('org', () => String) org: string,
    @Arg('user_id', () => UUIDScalar, { description: "The member's user id." }) userId: string,
    @Ctx() ctx: AppContext,
  ): Promise<MemberRemovedResponse> {
    return removeMember(ctx, org, userId);
  }
}

import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { ListPageArgs } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import {
  acceptInvitation,
  declineInvitation,
  inviteMember,
  listOrgInvitations,
  listUserInvitations,
  revokeInvitation,
} from './invitations.service';
import { InvitationResponse, InvitationSentResponse, InvitationStatusResponse, UserInvitationResponse } from './invitations.types';
import { InviteMemberInput } from './members.inputs';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { MemberResponse } from './members.types';

/** Adding a member: the owner invites an address, the account with that address accepts or declines. */
@Resolver()
export class InvitationResolver {
  @Mutation(() => InvitationSentResponse, {
    description: 'Invite an e-mail address into the organization (owner only). The same reply whether or not the address has an account.',
  })
  @Rest('POST', '/org/:org/members', { status: 202, tags: ['members'] })
  async invite_member(
    @Arg('org', () => String) org: string,
    @Arg('input', () => InviteMemberInput, { description: 'The address to invite and its role.' }) input: InviteMemberInput,
    @Ctx() ctx: AppContext,
  ): Promise<InvitationSentResponse> {
    return fromRow(InvitationSentResponse, await inviteMember(ctx, org, input));
  }

  @Query(() => [InvitationResponse], { description: "The organization's pending invitations, oldest first (owner only)." })
  @Rest('GET', '/org/:org/invitations', { tags: ['members'] })
  async org_invitations(
    @Arg('org', () => String) org: string,
    @Args(() => ListPageArgs) page: ListPageArgs,
    @Ctx() ctx: AppContext,
  ): Promise<InvitationResponse[]> {
    return (await listOrgInvitations(ctx, org, page)).map((row) => fromRow(InvitationResponse, row));
  }

  @Mutation(() => InvitationStatusResponse, { description: 'Withdraw a pending invitation (owner only).' })
  @Rest('DELETE', '/org/:org/invitations/:id', { tags: ['members'] })
  revoke_invitation(
    @Arg('org', () => String) org: string,
    @Arg('id', () => UUIDScalar, { description: "The invitation's id." }) id: string,
    @Ctx() ctx: AppContext,
  ): Promise<InvitationStatusResponse> {
    return revokeInvitation(ctx, org, id);
  }

  @Query(() => [UserInvitationResponse], { description: 'The pending invitations addressed to the caller (a bare JSON array over REST).' })
  @Rest('GET', '/user/invitations', { tags: ['members'] })
  async user_invitations(@Args(() => ListPageArgs) page: ListPageArgs, @Ctx() ctx: AppContext): Promise<UserInvitationResponse[]> {
    return (await listUserInvitations(ctx, page)).map((row) => fromRow(UserInvitationResponse, row));
  }

  @Mutation(() => MemberResponse, { description: 'Accept an invitation addressed to you: you become a member with its role.' })
  @Rest('POST', '/user/invitations/:id/accept', { status: 201, tags: ['members'] })
  async accept_invitation(@Arg('id', () => UUIDScalar, { description: "The invitation's id." }) id: string, @Ctx() ctx: AppContext): Promise<MemberResponse> {
    return fromRow(MemberResponse, await acceptInvitation(ctx, id));
  }

  @Mutation(() => InvitationStatusResponse, { description: 'Decline an invitation addressed to you.' })
  @Rest('POST', '/user/invitations/:id/decline', { tags: ['members'] })
  decline_invitation(@Arg('id', () => UUIDScalar, { description: "The invitation's id." }) id: string, @Ctx() ctx: AppContext): Promise<InvitationStatusResponse> {
    return declineInvitation(ctx, id);
  }
}

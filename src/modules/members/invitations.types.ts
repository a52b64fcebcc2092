import { Field, ObjectType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';
import { MemberRole } from './members.types';
import { derived, Sql, timestamp } from '../../core/graphql-sql/sql-fields';

/** The inviter, from the row's `inviter_username` (invitations.service's reads join it). */
const INVITER = derived((row) => ({ username: row.inviter_username }));

@ObjectType('InvitationSentResponse', {
  description: 'Reply of an invitation: the same whether or not the address has an account (no user id or profile before acceptance).',
})
export class InvitationSentResponse {
  @Sql(derived(() => 'invited'))
  @Field(() => String, { description: 'Always `invited`.' })
  status: 'invited';

  @Sql()
  @Field(() => String, { description: 'The invited address, lower-cased.' })
  email: string;

  @Sql()
  @Field(() => MemberRole, { description: 'The role the invitee gets on accepting.' })
  role: MemberRole;

  @Sql(timestamp)
  @Field(() => Date, { description: 'Seven days after the (latest) invitation.' })
  expires_at: Date;
}

@ObjectType('InvitationInviter', { description: 'Who sent an invitation.' })
export class InvitationInviter {
  @Field(() => String, { description: "The inviter's username." })
  username: string;
}

@ObjectType('InvitationResponse', { description: "A pending invitation as the organization's owners see it." })
export class InvitationResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The invitation's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: 'The invited address, lower-cased.' })
  email: string;

  @Sql()
  @Field(() => MemberRole, { description: 'The role the invitee gets on accepting.' })
  role: MemberRole;

  @Sql(INVITER)
  @Field(() => InvitationInviter, { description: 'Who sent the invitation.' })
  invited_by: InvitationInviter;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the invitation was sent.' })
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the invitation expires: seven days after it was (last) sent.' })
  expires_at: Date;
}

@ObjectType('UserInvitationResponse', { description: 'A pending invitation addressed to the caller.' })
export class UserInvitationResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The invitation's id (to accept or decline it)." })
  id: string;

  @Sql()
  @Field(() => String, { description: 'Key of the inviting organization.' })
  org_key: string;

  @Sql()
  @Field(() => String, { description: 'Name of the inviting organization.' })
  org_name: string;

  @Sql()
  @Field(() => MemberRole, { description: 'The role you get on accepting.' })
  role: MemberRole;

  @Sql(INVITER)
  @Field(() => InvitationInviter, { description: 'Who sent the invitation.' })
  invited_by: InvitationInviter;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the invitation was sent.' })
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the invitation expires: seven days after it was (last) sent.' })
  expires_at: Date;
}

@ObjectType('InvitationStatusResponse', { description: 'Reply of a decline (`declined`) or a revocation (`revoked`).' })
export class InvitationStatusResponse {
  @Field(() => UUIDScalar, { description: "The invitation's id." })
  id: string;

  @Field(() => String, { description: '`declined` or `revoked`.' })
  status: 'declined' | 'revoked';
}

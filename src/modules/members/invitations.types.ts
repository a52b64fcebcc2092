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
  @Field(() => MemberRole)
  role: MemberRole;

  @Sql(timestamp)
  @Field(() => Date, { description: 'Seven days after the (latest) invitation.' })
  expires_at: Date;
}

@ObjectType('InvitationInviter', { description: 'Who sent an invitation.' })
export class InvitationInviter {
  @Field(() => String)
  username: string;
}

@ObjectType('InvitationResponse', { description: "A pending invitation as the organization's owners see it." })
export class InvitationResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String, { description: 'The invited address, lower-cased.' })
  email: string;

  @Sql()
  @Field(() => MemberRole)
  role: MemberRole;

  @Sql(INVITER)
  @Field(() => InvitationInviter)
  invited_by: InvitationInviter;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  expires_at: Date;
}

@ObjectType('UserInvitationResponse', { description: 'A pending invitation addressed to the caller.' })
export class UserInvitationResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String)
  org_key: string;

  @Sql()
  @Field(() => String)
  org_name: string;

  @Sql()
  @Field(() => MemberRole)
  role: MemberRole;

  @Sql(INVITER)
  @Field(() => InvitationInviter)
  invited_by: InvitationInviter;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  expires_at: Date;
}

@ObjectType('InvitationStatusResponse', { description: 'Reply of a decline (`declined`) or a revocation (`revoked`).' })
export class InvitationStatusResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String, { description: '`declined` or `revoked`.' })
  status: 'declined' | 'revoked';
}

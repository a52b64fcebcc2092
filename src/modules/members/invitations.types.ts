import { Field, ObjectType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';
import { MemberRole } from './members.types';

@ObjectType('InvitationSentResponse', {
  description: 'Reply of an invitation: the same whether or not the address has an account (no user id or profile before acceptance).',
})
export class InvitationSentResponse {
  @Field(() => String, { description: 'Always `invited`.' })
  status: 'invited';

  @Field(() => String, { description: 'The invited address, lower-cased.' })
  email: string;

  @Field(() => MemberRole)
  role: MemberRole;

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
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String, { description: 'The invited address, lower-cased.' })
  email: string;

  @Field(() => MemberRole)
  role: MemberRole;

  @Field(() => InvitationInviter)
  invited_by: InvitationInviter;

  @Field(() => Date)
  created_at: Date;

  @Field(() => Date)
  expires_at: Date;
}

@ObjectType('UserInvitationResponse', { description: 'A pending invitation addressed to the caller.' })
export class UserInvitationResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String)
  org_key: string;

  @Field(() => String)
  org_name: string;

  @Field(() => MemberRole)
  role: MemberRole;

  @Field(() => InvitationInviter)
  invited_by: InvitationInviter;

  @Field(() => Date)
  created_at: Date;

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

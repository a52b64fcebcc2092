import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { EmailAddress } from '../../core/validation/email';
import { MemberRole } from './members.types';

@ApiInput('InviteMemberInput', { example: { email: 'grace@example.com', role: 'contributor' },
  description: 'Invites an e-mail address into the organization; the account with that address accepts or declines.',
})
export class InviteMemberInput {
  @Field(() => String, { description: 'The address to invite; it need not have an account yet.' })
  @EmailAddress()
  email: string;

  @Field(() => MemberRole, { description: 'The role the invitee gets on accepting.' })
  role: MemberRole;
}

@ApiInput('UpdateMemberInput', { description: "A member's new role." })
export class UpdateMemberInput {
  @Field(() => MemberRole, { description: 'The new role; the last owner cannot be demoted (409).' })
  role: MemberRole;
}

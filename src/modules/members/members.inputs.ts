import { IsEmail, MaxLength } from 'class-validator';
import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { MemberRole } from './members.types';

@ApiInput('InviteMemberInput', {
  description: 'Invites an e-mail address into the organization; the account with that address accepts or declines.',
})
export class InviteMemberInput {
  @Field(() => String)
  @MaxLength(320)
  @IsEmail({}, { message: 'value is not a valid email address' })
  email: string;

  @Field(() => MemberRole)
  role: MemberRole;
}

@ApiInput('UpdateMemberInput')
export class UpdateMemberInput {
  @Field(() => MemberRole)
  role: MemberRole;
}

import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';

/** Organization roles (same values as the `member_role` column). */
export enum MemberRole {
  owner = 'owner',
  contributor = 'contributor',
  reader = 'reader',
}
registerEnumType(MemberRole, { name: 'MemberRole', description: 'Organization role: owner, contributor or reader.' });

@ObjectType('MemberResponse', { description: 'A member of an organization.' })
export class MemberResponse {
  @Field(() => UUIDScalar)
  user_id: string;

  @Field(() => String)
  email: string;

  @Field(() => String)
  username: string;

  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Field(() => MemberRole)
  role: MemberRole;

  @Field(() => Date, { description: 'When the user joined the organization.' })
  joined_at: Date;
}

@ObjectType('MemberRemovedResponse', { description: 'Reply of a member removal.' })
export class MemberRemovedResponse {
  @Field(() => UUIDScalar)
  user_id: string;

  @Field(() => Boolean)
  removed: boolean;
}

import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';
import { derived, Sql } from '../../core/graphql-sql/sql-fields';

/** A member reply is read from the pair { membership, user } (members.service Member). */
const ofUser = (key: string) => derived((member) => (member.user as Record<string, unknown>)[key]);
const ofMembership = (key: string) => derived((member) => (member.membership as Record<string, unknown>)[key]);

/** Organization roles (same values as the `member_role` column). */
export enum MemberRole {
  owner = 'owner',
  contributor = 'contributor',
  reader = 'reader',
}
registerEnumType(MemberRole, { name: 'MemberRole', description: 'Organization role: owner, contributor or reader.' });

@ObjectType('MemberResponse', { description: 'A member of an organization.' })
export class MemberResponse {
  @Sql(ofUser('id'))
  @Field(() => UUIDScalar)
  user_id: string;

  @Sql(ofUser('email'))
  @Field(() => String)
  email: string;

  @Sql(ofUser('username'))
  @Field(() => String)
  username: string;

  @Sql(ofUser('full_name'))
  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Sql(ofMembership('role'))
  @Field(() => MemberRole)
  role: MemberRole;

  @Sql(ofMembership('created_at'))
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

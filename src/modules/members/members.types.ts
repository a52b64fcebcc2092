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
registerEnumType(MemberRole, {
  name: 'MemberRole',
  description: 'Organization role: owner, contributor or reader.',
  valuesConfig: {
    owner: { description: 'Full control: manages members, invitations and organization settings, and writes everything.' },
    contributor: { description: 'Writes resources (sessions, evaluations, catalogs…) and creates workspaces; cannot manage members.' },
    reader: { description: 'Reads every workspace of the organization and writes nothing.' },
  },
});

@ObjectType('MemberResponse', { description: 'A member of an organization.' })
export class MemberResponse {
  @Sql(ofUser('id'))
  @Field(() => UUIDScalar, { description: "The member's user id." })
  user_id: string;

  @Sql(ofUser('email'))
  @Field(() => String, { description: "The member's e-mail address." })
  email: string;

  @Sql(ofUser('username'))
  @Field(() => String, { description: "The member's username." })
  username: string;

  @Sql(ofUser('full_name'))
  @Field(() => String, { nullable: true, description: "The member's full name; null when not given." })
  full_name: string | null;

  @Sql(ofMembership('role'))
  @Field(() => MemberRole, { description: "The member's role in the organization." })
  role: MemberRole;

  @Sql(ofMembership('created_at'))
  @Field(() => Date, { description: 'When the user joined the organization.' })
  joined_at: Date;
}

@ObjectType('MemberRemovedResponse', { description: 'Reply of a member removal.' })
export class MemberRemovedResponse {
  @Field(() => UUIDScalar, { description: "The removed member's user id." })
  user_id: string;

  @Field(() => Boolean, { description: 'Always true.' })
  removed: boolean;
}

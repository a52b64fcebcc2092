import { Field, ObjectType } from 'type-graphql';
import { column, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { MaxItems } from '../../core/graphql-decorators';
import { NoStore } from '../../core/no-store';
import { MAX_LIST_PAGE } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('SignupUserResponse', { description: 'The account created by signup.' })
export class SignupUserResponse {
  @Field(() => String)
  id: string;

  @Field(() => String)
  username: string;

  @Field(() => String)
  email_address: string;

  @Field(() => String, { nullable: true, description: 'Null when e-mail verification is required first.' })
  @NoStore()
  access_token: string | null;

  @Field(() => Boolean)
  requires_verification: boolean;
}

@ObjectType('UserIdentityResponse', { description: 'A denormalised view of a user.' })
export class UserIdentityResponse {
  @Sql()
  @Field(() => String)
  email: string;

  @Sql()
  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Sql()
  @Field(() => String)
  id: string;

  @Sql()
  @Field(() => String)
  username: string;
}

@ObjectType('OrgInfo', { description: 'An organization in a token reply.' })
export class OrgInfo {
  @Field(() => String)
  key: string;

  @Field(() => String)
  name: string;
}

@ObjectType('AccessTokenResponse', { description: 'An access token with the organizations of its user.' })
export class AccessTokenResponse {
  @Field(() => String)
  @NoStore()
  access_token: string;

  @Field(() => OrgInfo, { nullable: true, description: "The user's personal organization." })
  default_org: OrgInfo | null;

  @Field(() => [OrgInfo])
  @MaxItems(MAX_LIST_PAGE)
  orgs: OrgInfo[];
}

@ObjectType('ForgotPasswordResponse', { description: 'The same reply whether or not the address exists.' })
export class ForgotPasswordResponse {
  @Field(() => String)
  status: string;

  @Field(() => String)
  detail: string;
}

@ObjectType('ResendVerificationResponse', { description: 'The same reply whether or not the address has an unverified account.' })
export class ResendVerificationResponse {
  @Field(() => String)
  status: string;

  @Field(() => String)
  detail: string;
}

@ObjectType('VerifyEmailResponse', { description: 'The address a verification link proved.' })
export class VerifyEmailResponse {
  @Field(() => String, { description: '`verified`.' })
  status: string;

  @Field(() => String)
  email_address: string;

  @Field(() => Date, { description: 'When the address was first verified.' })
  email_verified_at: Date;
}

@ObjectType('UserResponse', { description: 'The authenticated user.' })
export class UserResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql(column('email'))
  @Field(() => String)
  email_address: string;

  @Sql()
  @Field(() => String)
  username: string;

  @Sql()
  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Sql()
  @Field(() => Boolean)
  email_opt_in: boolean;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;
}

import { Field, ObjectType } from 'type-graphql';
import { column, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { MaxItems } from '../../core/graphql-decorators';
import { NoStore } from '../../core/no-store';
import { MAX_LIST_PAGE } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('SignupUserResponse', { description: 'The account created by signup.' })
export class SignupUserResponse {
  @Field(() => String, { description: "The new user's id." })
  id: string;

  @Field(() => String, { description: "The username: the one given, or the e-mail's local part as a slug made unique with a numeric suffix." })
  username: string;

  @Field(() => String, { description: 'The e-mail address the account was created with.' })
  email_address: string;

  @Field(() => String, { nullable: true, description: 'Null when e-mail verification is required first.' })
  @NoStore()
  access_token: string | null;

  @Field(() => Boolean, { description: 'True when the e-mail address must be verified before logging in (then `access_token` is null).' })
  requires_verification: boolean;
}

@ObjectType('UserIdentityResponse', { description: 'A denormalised view of a user.' })
export class UserIdentityResponse {
  @Sql()
  @Field(() => String, { description: "The user's e-mail address." })
  email: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The user's full name; null when not given." })
  full_name: string | null;

  @Sql()
  @Field(() => String, { description: "The user's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: "The user's username." })
  username: string;
}

@ObjectType('OrgInfo', { description: 'An organization in a token reply.' })
export class OrgInfo {
  @Field(() => String, { description: "The organization's key (its URL slug)." })
  key: string;

  @Field(() => String, { description: "The organization's display name." })
  name: string;
}

@ObjectType('AccessTokenResponse', { description: 'An access token with the organizations of its user.' })
export class AccessTokenResponse {
  @Field(() => String, { description: 'A JWT to send as `Authorization: Bearer <token>`; expires after the configured lifetime (24 hours by default).' })
  @NoStore()
  access_token: string;

  @Field(() => OrgInfo, { nullable: true, description: "The user's personal organization." })
  default_org: OrgInfo | null;

  @Field(() => [OrgInfo], { description: 'The organizations the user belongs to, oldest membership first (the first 100; GET /user/organizations lists them all).' })
  @MaxItems(MAX_LIST_PAGE)
  orgs: OrgInfo[];
}

@ObjectType('ForgotPasswordResponse', { description: 'The same reply whether or not the address exists.' })
export class ForgotPasswordResponse {
  @Field(() => String, { description: 'Always `accepted`.' })
  status: string;

  @Field(() => String, { description: 'A message that does not tell whether the address exists.' })
  detail: string;
}

@ObjectType('ResendVerificationResponse', { description: 'The same reply whether or not the address has an unverified account.' })
export class ResendVerificationResponse {
  @Field(() => String, { description: 'Always `accepted`.' })
  status: string;

  @Field(() => String, { description: 'A message that does not tell whether the address has an unverified account.' })
  detail: string;
}

@ObjectType('VerifyEmailResponse', { description: 'The address a verification link proved.' })
export class VerifyEmailResponse {
  @Field(() => String, { description: '`verified`.' })
  status: string;

  @Field(() => String, { description: 'The verified e-mail address.' })
  email_address: string;

  @Field(() => Date, { description: 'When the address was first verified.' })
  email_verified_at: Date;
}

@ObjectType('UserResponse', { description: 'The authenticated user.' })
export class UserResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The user's id." })
  id: string;

  @Sql(column('email'))
  @Field(() => String, { description: "The user's e-mail address." })
  email_address: string;

  @Sql()
  @Field(() => String, { description: "The user's username (also the key of their personal organization)." })
  username: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The user's full name; null when not given." })
  full_name: string | null;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the user agreed to receive product e-mail.' })
  email_opt_in: boolean;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;
}

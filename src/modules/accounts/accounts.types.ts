import { Field, ObjectType } from 'type-graphql';

@ObjectType('SignupUserResponse', { description: 'The account created by signup.' })
export class SignupUserResponse {
  @Field(() => String)
  id: string;

  @Field(() => String)
  username: string;

  @Field(() => String)
  email_address: string;

  @Field(() => String, { nullable: true, description: 'Null when e-mail verification is required first.' })
  access_token: string | null;

  @Field(() => Boolean)
  requires_verification: boolean;
}

@ObjectType('UserIdentityResponse', { description: 'A denormalised view of a user.' })
export class UserIdentityResponse {
  @Field(() => String)
  email: string;

  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Field(() => String)
  id: string;

  @Field(() => String)
  username: string;
}

import { Field, Int, ObjectType } from 'type-graphql';
import { MaxItems } from '../../core/graphql-decorators';
import { Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { UUIDScalar } from '../../core/scalars';
import { SECRET_PRESETS, SecretProvider, type SecretProviderName } from './secret-presets';

/** Secrets one user may hold; one more is 409 (so the list needs no paging). */
export const MAX_SECRETS_PER_USER = 500;

@ObjectType('UserSecretResponse', { description: 'A secret of the caller: its name and a masked value; the value itself is never returned.' })
export class UserSecretResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The secret's id (what evaluation `secret_ids` name)." })
  id: string;

  @Sql()
  @Field(() => String, { description: 'An environment-variable name, unique per user; it never changes.' })
  name: string;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The preset provider the secret was made from (`openai`, …); null for a custom secret.' })
  provider: string | null;

  @Sql()
  @Field(() => String, {
    description: 'The value with its middle hidden: the first 3 and last 4 characters of a value of 16 or more characters (`sk-…x9Yz`), else `********`.',
  })
  masked_value: string;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the secret was created.' })
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the value was last set (the creation time until it is updated).' })
  updated_at: Date;
}

@ObjectType('UserSecretListResponse', { description: "The caller's secrets, by name." })
export class UserSecretListResponse {
  @Field(() => [UserSecretResponse], { description: `Every secret of the caller (at most ${MAX_SECRETS_PER_USER}), ordered by name.` })
  @MaxItems(MAX_SECRETS_PER_USER)
  secrets: UserSecretResponse[];

  @Field(() => Int, { description: 'How many secrets the caller has (the length of `secrets`).' })
  total: number;
}

@ObjectType('SecretPresetResponse', { description: "A provider preset and whether the caller has a secret of its name." })
export class SecretPresetResponse {
  @Field(() => SecretProvider, { description: 'The provider (the `provider` of `POST /user/secrets/preset`).' })
  provider: SecretProviderName;

  @Field(() => String, { description: 'The environment variable the secret is named after.' })
  env_var_name: string;

  @Field(() => Boolean, { description: 'Whether the caller has a secret of that name (made from the preset or not).' })
  configured: boolean;
}

@ObjectType('SecretPresetListResponse', { description: 'Every provider preset.' })
export class SecretPresetListResponse {
  @Field(() => [SecretPresetResponse], { description: 'The presets, in a fixed order.' })
  @MaxItems(SECRET_PRESETS.length)
  presets: SecretPresetResponse[];
}

@ObjectType('DeletedUserSecretResponse', { description: 'The result of deleting a secret.' })
export class DeletedUserSecretResponse {
  @Field(() => UUIDScalar, { description: "The deleted secret's id." })
  id: string;

  @Field(() => Boolean, { description: 'Always true: the secret and its sealed value are gone.' })
  deleted: boolean;
}

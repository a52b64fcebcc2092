import { Field, ObjectType } from 'type-graphql';
import { MaxItems } from '../../core/graphql-decorators';
import { NoStore } from '../../core/no-store';
import { UUIDScalar } from '../../core/scalars';
import { MAX_KEY_SCOPES } from './api-keys.inputs';
import { derived, Sql, timestamp } from '../../core/graphql-sql/sql-fields';

/** A key is active until it is revoked. */
const ACTIVE = derived((row) => row.revoked_at == null);

@ObjectType('ApiKeyResponse', { description: 'An API key as listed: masked, the key itself is never shown again.' })
export class ApiKeyResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The key's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: 'e.g. `apk_Ab3d…x9Yz`' })
  masked_key: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The key's label; null when none was given." })
  name: string | null;

  @Sql(ACTIVE)
  @Field(() => Boolean, { description: 'False once revoked.' })
  active: boolean;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Scopes the key is limited to; null when not limited.' })
  @MaxItems(MAX_KEY_SCOPES)
  allowed_scopes: string[] | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the key last authenticated a request (updated at most once a minute); null if never used.' })
  last_used_at: Date | null;
}

@ObjectType('CreatedApiKeyResponse', { description: 'A new API key; `key` is shown only in this reply.' })
export class CreatedApiKeyResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The key's id." })
  id: string;

  @Field(() => String, { description: 'The secret key. Store it now: only its hash is kept.' })
  @NoStore()
  key: string;

  @Sql()
  @Field(() => String, { description: 'The key with its middle hidden, as lists show it.' })
  masked_key: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The key's label; null when none was given." })
  name: string | null;

  @Sql(ACTIVE)
  @Field(() => Boolean, { description: 'True: a new key is active.' })
  active: boolean;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Scopes the key is limited to; null when not limited.' })
  @MaxItems(MAX_KEY_SCOPES)
  allowed_scopes: string[] | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'Null: the key has not been used yet.' })
  last_used_at: Date | null;
}

@ObjectType('RevokedApiKeyResponse', { description: 'The result of revoking an API key.' })
export class RevokedApiKeyResponse {
  @Field(() => UUIDScalar, { description: "The revoked key's id." })
  id: string;

  @Field(() => Boolean, { description: 'Always true; revoking an already revoked key keeps its first revocation time.' })
  revoked: boolean;
}

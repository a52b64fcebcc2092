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
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String, { description: 'e.g. `apk_Ab3d…x9Yz`' })
  masked_key: string;

  @Sql()
  @Field(() => String, { nullable: true })
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
  @Field(() => Date, { nullable: true })
  last_used_at: Date | null;
}

@ObjectType('CreatedApiKeyResponse', { description: 'A new API key; `key` is shown only in this reply.' })
export class CreatedApiKeyResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String, { description: 'The secret key. Store it now: only its hash is kept.' })
  @NoStore()
  key: string;

  @Sql()
  @Field(() => String)
  masked_key: string;

  @Sql()
  @Field(() => String, { nullable: true })
  name: string | null;

  @Sql(ACTIVE)
  @Field(() => Boolean)
  active: boolean;

  @Sql()
  @Field(() => [String], { nullable: true })
  @MaxItems(MAX_KEY_SCOPES)
  allowed_scopes: string[] | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  last_used_at: Date | null;
}

@ObjectType('RevokedApiKeyResponse')
export class RevokedApiKeyResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => Boolean)
  revoked: boolean;
}

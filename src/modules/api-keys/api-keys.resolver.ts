import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { ListPageArgs } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { CreateApiKeyInput } from './api-keys.inputs';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { createApiKey, listApiKeys, revokeApiKey, revokeCallingApiKey } from './api-keys.service';
import { ApiKeyResponse, CreatedApiKeyResponse, RevokedApiKeyResponse } from './api-keys.types';

@Resolver()
export class ApiKeyResolver {
  @Mutation(() => CreatedApiKeyResponse, { description: 'Create an API key; the key is shown only in this reply.' })
  @Rest('POST', '/user/api-keys', { status: 201, tags: ['api-keys'] })
  async create_api_key(@Arg('input', () => CreateApiKeyInput, { description: "The key's label and limits." }) input: CreateApiKeyInput, @Ctx() ctx: AppContext): Promise<CreatedApiKeyResponse> {
    const created = await createApiKey(ctx, input);
    return Object.assign(fromRow(CreatedApiKeyResponse, created.row), { key: created.key });
  }

  @Query(() => [ApiKeyResponse], { description: "The caller's API keys, masked, newest first (a bare JSON array over REST)." })
  @Rest('GET', '/user/api-keys', { tags: ['api-keys'] })
  async api_keys(
    @Arg('include_revoked', () => Boolean, { nullable: true, defaultValue: false, description: 'Also list revoked keys.' })
    includeRevoked: boolean,
    @Args(() => ListPageArgs) page: ListPageArgs,
    @Ctx() ctx: AppContext,
  ): Promise<ApiKeyResponse[]> {
    return (await listApiKeys(ctx, includeRevoked ?? false, page)).map((row) => fromRow(ApiKeyResponse, row));
  }

  @Mutation(() => RevokedApiKeyResponse, { description: 'Revoke the API key this request is made with (when it allows self-revocation).' })
  @Rest('DELETE', '/user/api-keys/self', { tags: ['api-keys'] })
  async revoke_current_api_key(@Ctx() ctx: AppContext): Promise<RevokedApiKeyResponse> {
    const row = await revokeCallingApiKey(ctx);
    return { id: row.id, revoked: true };
  }

  @Mutation(() => RevokedApiKeyResponse, { description: 'Revoke one of your API keys.' })
  @Rest('DELETE', '/user/api-keys/:id', { tags: ['api-keys'] })
  async revoke_api_key(@Arg('id', () => UUIDScalar, { description: "The id of the key to revoke (one of the caller's)." }) id: string, @Ctx() ctx: AppContext): Promise<RevokedApiKeyResponse> {
    const row = await revokeApiKey(ctx, id);
    return { id: row.id, revoked: true };
  }
}

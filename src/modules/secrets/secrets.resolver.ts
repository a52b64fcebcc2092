import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { UUIDScalar } from '../../core/scalars';
import { CreatePresetSecretInput, CreateUserSecretInput, UpdateUserSecretInput } from './secrets.inputs';
import { createPresetSecret, createUserSecret, deleteUserSecret, getUserSecret, listSecretPresets, listUserSecrets, updateUserSecret } from './secrets.service';
import { DeletedUserSecretResponse, SecretPresetListResponse, UserSecretListResponse, UserSecretResponse } from './secrets.types';

const TAGS = { tags: ['secrets'] };

@Resolver()
export class SecretResolver {
  @Query(() => UserSecretListResponse, { description: "The caller's secrets, masked, ordered by name." })
  @Rest('GET', '/user/secrets', TAGS)
  async user_secrets(@Ctx() ctx: AppContext): Promise<UserSecretListResponse> {
    const secrets = (await listUserSecrets(ctx)).map((row) => fromRow(UserSecretResponse, row));
    return { secrets, total: secrets.length };
  }

  @Query(() => SecretPresetListResponse, { description: 'The provider presets, each saying whether the caller has a secret of its name.' })
  @Rest('GET', '/user/secrets/presets', TAGS)
  async secret_presets(@Ctx() ctx: AppContext): Promise<SecretPresetListResponse> {
    return { presets: await listSecretPresets(ctx) };
  }

  @Query(() => UserSecretResponse, { nullable: true, description: 'One of your secrets, masked.' })
  @Rest('GET', '/user/secrets/:id', TAGS)
  async user_secret(@Arg('id', () => UUIDScalar, { description: "The secret's id (one of the caller's)." }) id: string, @Ctx() ctx: AppContext): Promise<UserSecretResponse> {
    return fromRow(UserSecretResponse, await getUserSecret(ctx, id));
  }

  @Mutation(() => UserSecretResponse, { description: 'Create a secret; the reply shows it masked.' })
  @Rest('POST', '/user/secrets', { status: 201, ...TAGS })
  async create_user_secret(@Arg('input', () => CreateUserSecretInput, { description: "The secret's name and value." }) input: CreateUserSecretInput, @Ctx() ctx: AppContext): Promise<UserSecretResponse> {
    return fromRow(UserSecretResponse, await createUserSecret(ctx, input));
  }

  @Mutation(() => UserSecretResponse, { description: "Create a provider's secret from its preset, named after the provider's environment variable." })
  @Rest('POST', '/user/secrets/preset', { status: 201, ...TAGS })
  async create_preset_secret(@Arg('input', () => CreatePresetSecretInput, { description: 'The provider and the value.' }) input: CreatePresetSecretInput, @Ctx() ctx: AppContext): Promise<UserSecretResponse> {
    return fromRow(UserSecretResponse, await createPresetSecret(ctx, input));
  }

  @Mutation(() => UserSecretResponse, { description: "Replace a secret's value (its name never changes)." })
  @Rest('PUT', '/user/secrets/:id', TAGS)
  async update_user_secret(
    @Arg('id', () => UUIDScalar, { description: "The secret's id (one of the caller's)." }) id: string,
    @Arg('input', () => UpdateUserSecretInput, { description: 'The new value.' }) input: UpdateUserSecretInput,
    @Ctx() ctx: AppContext,
  ): Promise<UserSecretResponse> {
    return fromRow(UserSecretResponse, await updateUserSecret(ctx, id, input));
  }

  @Mutation(() => DeletedUserSecretResponse, { description: 'Delete one of your secrets and its stored value.' })
  @Rest('DELETE', '/user/secrets/:id', TAGS)
  async delete_user_secret(@Arg('id', () => UUIDScalar, { description: "The secret's id (one of the caller's)." }) id: string, @Ctx() ctx: AppContext): Promise<DeletedUserSecretResponse> {
    return deleteUserSecret(ctx, id);
  }
}

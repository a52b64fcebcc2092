import { fromRow } from '../../core/graphql-sql/sql-fields';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { ChatSettingsUpdateInput } from './chat-integration.inputs';
import { toChatConnection } from './chat-integration.mapper';
import { getChatIntegration, updateChatSettings } from './chat-integration.service';
import { ChatConnectionResponse } from './chat-integration.types';

@Resolver(() => ChatConnectionResponse)
export class ChatIntegrationResolver {
  @Query(() => ChatConnectionResponse, { description: "The organization's chat integration (any member)." })
  @Rest('GET', '/org/:org/integrations/chat', { tags: ['integrations'] })
  async chat_integration(@Arg('org', () => String) org: string, @Ctx() ctx: AppContext): Promise<ChatConnectionResponse> {
    return toChatConnection(await getChatIntegration(ctx, org));
  }

  @Mutation(() => ChatConnectionResponse, {
    description: 'Update any subset of the chat settings (owner only); applies to turns that start after the write.',
  })
  @Rest('PUT', '/org/:org/integrations/chat/settings', { tags: ['integrations'] })
  async update_chat_settings(
    @Arg('org', () => String) org: string,
    @Arg('input', () => ChatSettingsUpdateInput, { description: 'The settings to change.' }) input: ChatSettingsUpdateInput,
    @Ctx() ctx: AppContext,
  ): Promise<ChatConnectionResponse> {
    return toChatConnection(await updateChatSettings(ctx, org, input));
  }

  @FieldResolver(() => UserIdentityResponse, { nullable: true, description: 'The user who connected the integration.' })
  async connected_by(@Root() connection: ChatConnectionResponse, @Ctx() ctx: AppContext): Promise<UserIdentityResponse | null> {
    if (!connection.connected_by_user_id) return null;
    const user = await ctx.loaders.userById.load(connection.connected_by_user_id);
    return user ? fromRow(UserIdentityResponse, user) : null;
  }
}

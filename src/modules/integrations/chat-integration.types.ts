import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { derived, fromRow, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { JSONObjectScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';

export enum ChatConnectionStatus {
  disabled = 'disabled',
  disconnected = 'disconnected',
  connected = 'connected',
  connecting = 'connecting',
}
registerEnumType(ChatConnectionStatus, { name: 'ChatConnectionStatus' });

/** Who may steer a session from the chat tool. */
export enum ChatFollowUps {
  requester = 'requester',
  any_linked = 'any_linked',
}
registerEnumType(ChatFollowUps, { name: 'ChatFollowUps' });

/** How shared (cross-team) channels are handled. */
export enum ChatSharedChannels {
  link = 'link',
  same = 'same',
}
registerEnumType(ChatSharedChannels, { name: 'ChatSharedChannels' });

/** How much of a turn is shown in the thread. */
export enum ChatThreadDetail {
  full = 'full',
  final = 'final',
  link = 'link',
}
registerEnumType(ChatThreadDetail, { name: 'ChatThreadDetail' });

@ObjectType('ChatSettings', { description: 'Organization-level chat settings, read on every incoming event.' })
export class ChatSettings {
  @Sql()
  @Field(() => ChatFollowUps)
  follow_ups: ChatFollowUps;

  @Sql()
  @Field(() => ChatSharedChannels)
  shared_channels: ChatSharedChannels;

  @Sql()
  @Field(() => ChatThreadDetail)
  thread_detail: ChatThreadDetail;
}

@ObjectType('ChatConnectionResponse', { description: "The organization's chat-tool connection." })
export class ChatConnectionResponse {
  @Sql()
  @Field(() => ChatConnectionStatus)
  status: ChatConnectionStatus;

  @Sql()
  @Field(() => String)
  bot_handle: string;

  @Sql()
  @Field(() => String)
  bot_user_id: string;

  @Sql()
  @Field(() => String)
  team_id: string;

  @Sql()
  @Field(() => String)
  team_name: string;

  @Sql()
  @Field(() => String)
  team_url: string;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  connected_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  disconnected_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  last_event_at: Date | null;

  /** Resolved through the user loader from `connected_by_user_id`. */
  connected_by?: UserIdentityResponse | null;

  /** Internal: the connecting user's id (not a GraphQL field). */
  connected_by_user_id: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  disconnect_reason: string | null;

  @Sql(derived((row) => row.masked_credentials ?? {}))
  @Field(() => JSONObjectScalar, { description: 'Credential values, masked.' })
  masked_credentials: Record<string, unknown>;

  @Sql(derived((row) => fromRow(ChatSettings, row)))
  @Field(() => ChatSettings)
  settings: ChatSettings;
}

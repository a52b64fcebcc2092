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
registerEnumType(ChatConnectionStatus, {
  name: 'ChatConnectionStatus',
  description: "State of an organization's chat-tool connection.",
  valuesConfig: {
    disabled: { description: 'The integration is turned off for the organization.' },
    disconnected: { description: 'Not connected; the state until a chat team is connected.' },
    connected: { description: 'Connected to a chat team.' },
    connecting: { description: 'A connection is being set up.' },
  },
});

/** Who may steer a session from the chat tool. */
export enum ChatFollowUps {
  requester = 'requester',
  any_linked = 'any_linked',
}
registerEnumType(ChatFollowUps, {
  name: 'ChatFollowUps',
  description: 'Who may steer a session from the chat tool.',
  valuesConfig: {
    requester: { description: 'Only the user who started the session (default).' },
    any_linked: { description: 'Any user with a linked account.' },
  },
});

/** How shared (cross-team) channels are handled. */
export enum ChatSharedChannels {
  link = 'link',
  same = 'same',
}
registerEnumType(ChatSharedChannels, {
  name: 'ChatSharedChannels',
  description: 'How shared (cross-team) channels are handled.',
  valuesConfig: {
    link: { description: 'Shared channels get a link to the session (default).' },
    same: { description: "Shared channels are handled the same as the team's own channels." },
  },
});

/** How much of a turn is shown in the thread. */
export enum ChatThreadDetail {
  full = 'full',
  final = 'final',
  link = 'link',
}
registerEnumType(ChatThreadDetail, {
  name: 'ChatThreadDetail',
  description: 'How much of a turn is shown in the chat thread.',
  valuesConfig: {
    full: { description: 'The whole turn (default).' },
    final: { description: 'Only the final reply.' },
    link: { description: 'Only a link to the session.' },
  },
});

@ObjectType('ChatSettings', { description: 'Organization-level chat settings, read on every incoming event.' })
export class ChatSettings {
  @Sql()
  @Field(() => ChatFollowUps, { description: 'Who may steer a session from the chat tool (default `requester`).' })
  follow_ups: ChatFollowUps;

  @Sql()
  @Field(() => ChatSharedChannels, { description: 'How shared (cross-team) channels are handled (default `link`).' })
  shared_channels: ChatSharedChannels;

  @Sql()
  @Field(() => ChatThreadDetail, { description: 'How much of a turn is shown in the thread (default `full`).' })
  thread_detail: ChatThreadDetail;
}

@ObjectType('ChatConnectionResponse', { description: "The organization's chat-tool connection." })
export class ChatConnectionResponse {
  @Sql()
  @Field(() => ChatConnectionStatus, { description: "The connection's state; `disconnected` until connected." })
  status: ChatConnectionStatus;

  @Sql()
  @Field(() => String, { description: "The bot's handle in the chat tool; empty until connected." })
  bot_handle: string;

  @Sql()
  @Field(() => String, { description: "The bot's user id in the chat tool; empty until connected." })
  bot_user_id: string;

  @Sql()
  @Field(() => String, { description: "The connected chat team's id; empty until connected." })
  team_id: string;

  @Sql()
  @Field(() => String, { description: "The connected chat team's name; empty until connected." })
  team_name: string;

  @Sql()
  @Field(() => String, { description: "The connected chat team's URL; empty until connected." })
  team_url: string;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the connection was made; null until connected.' })
  connected_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the connection was last lost or removed; null if never.' })
  disconnected_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the last event from the chat tool arrived; null before the first.' })
  last_event_at: Date | null;

  /** Resolved through the user loader from `connected_by_user_id`. */
  connected_by?: UserIdentityResponse | null;

  /** Internal: the connecting user's id (not a GraphQL field). */
  connected_by_user_id: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Why the connection was last lost or removed; null if never.' })
  disconnect_reason: string | null;

  @Sql(derived((row) => row.masked_credentials ?? {}))
  @Field(() => JSONObjectScalar, { description: 'Credential values, masked.' })
  masked_credentials: Record<string, unknown>;

  @Sql(derived((row) => fromRow(ChatSettings, row)))
  @Field(() => ChatSettings, { description: "The organization's chat settings, read on every incoming event." })
  settings: ChatSettings;
}

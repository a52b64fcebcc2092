import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

export const CHAT_STATUSES = ['disabled', 'disconnected', 'connected', 'connecting'] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];
export const CHAT_FOLLOW_UPS = ['requester', 'any_linked'] as const;
export const CHAT_SHARED_CHANNELS = ['link', 'same'] as const;
export const CHAT_THREAD_DETAILS = ['full', 'final', 'link'] as const;

/** The chat-tool connection of one organization (at most one row per org). */
@Table({ tableName: 'chat_integrations', underscored: true })
export class ChatIntegrationModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Default('disconnected')
  @Column(DataType.TEXT)
  declare status: ChatStatus;

  @Default('')
  @Column(DataType.TEXT)
  declare bot_handle: string;

  @Default('')
  @Column(DataType.TEXT)
  declare bot_user_id: string;

  @Default('')
  @Column(DataType.TEXT)
  declare team_id: string;

  @Default('')
  @Column(DataType.TEXT)
  declare team_name: string;

  @Default('')
  @Column(DataType.TEXT)
  declare team_url: string;

  @Column(DataType.DATE)
  declare connected_at: Date | null;

  @Column(DataType.DATE)
  declare disconnected_at: Date | null;

  @Column(DataType.DATE)
  declare last_event_at: Date | null;

  @Column(DataType.UUID)
  declare connected_by: string | null;

  @Column(DataType.TEXT)
  declare disconnect_reason: string | null;

  /** Already masked values only; raw credentials are never stored here. */
  @Default({})
  @Column(DataType.JSONB)
  declare masked_credentials: Record<string, unknown>;

  @Default('requester')
  @Column(DataType.TEXT)
  declare follow_ups: (typeof CHAT_FOLLOW_UPS)[number];

  @Default('link')
  @Column(DataType.TEXT)
  declare shared_channels: (typeof CHAT_SHARED_CHANNELS)[number];

  @Default('full')
  @Column(DataType.TEXT)
  declare thread_detail: (typeof CHAT_THREAD_DETAILS)[number];

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

export const SESSION_GROUP_KINDS = ['worker_run', 'evaluation_item', 'workflow', 'workflow_run'] as const;
export const SESSION_GROUP_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type SessionGroupKind = (typeof SESSION_GROUP_KINDS)[number];
export type SessionGroupStatus = (typeof SESSION_GROUP_STATUSES)[number];

/** A group of sessions (a worker run, an evaluation item, a workflow). Counts are derived. */
@Table({ tableName: 'session_groups', underscored: true })
export class SessionGroupModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.UUID)
  declare workspace_id: string;

  @Column(DataType.UUID)
  declare project_id: string;

  @Column(DataType.TEXT)
  declare kind: SessionGroupKind;

  @Column(DataType.TEXT)
  declare status: SessionGroupStatus | null;

  @Column(DataType.TEXT)
  declare title: string | null;

  @Column(DataType.TEXT)
  declare worker: string | null;

  @Column(DataType.TEXT)
  declare capability: string | null;

  @Column(DataType.TEXT)
  declare capability_version: string | null;

  @Column(DataType.UUID)
  declare evaluation_id: string | null;

  @Column(DataType.UUID)
  declare evaluation_item_id: string | null;

  @Column(DataType.UUID)
  declare evaluation_item_attempt_id: string | null;

  @Column(DataType.UUID)
  declare runtime_id: string | null;

  @Default({})
  @Column(DataType.JSONB)
  declare metadata: Record<string, unknown>;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @Column(DataType.DATE)
  declare started_at: Date | null;

  @Column(DataType.DATE)
  declare completed_at: Date | null;

  // Counts over every session of the group, maintained on write (src/modules/session-groups/group-rollups.ts).
  @Default(0)
  @Column(DataType.INTEGER)
  declare session_count: number;

  @Default(0)
  @Column(DataType.INTEGER)
  declare active_session_count: number;

  /** bigint: pg returns it as a string. */
  @Default(0)
  @Column(DataType.BIGINT)
  declare message_count: string | number;

  @Default(0)
  @Column(DataType.BIGINT)
  declare total_tokens: string | number;

  @Column(DataType.DATE)
  declare last_activity_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

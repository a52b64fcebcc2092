import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table } from 'sequelize-typescript';

/**
 * One transcript message. `seq` orders a session's messages; compacted
 * messages stay (they count in the lifetime usage) with `compacted_at` set.
 */
@Table({ tableName: 'session_messages', underscored: true, updatedAt: false })
export class SessionMessageModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  declare session_id: string;

  @PrimaryKey
  @Column(DataType.INTEGER)
  declare seq: number;

  @Column(DataType.UUID)
  declare organization_id: string;

  /** Client-given message id, or a generated UUID. */
  @Column(DataType.TEXT)
  declare id: string;

  @Column(DataType.TEXT)
  declare role: string;

  @Column(DataType.JSONB)
  declare content: unknown;

  @Column(DataType.JSONB)
  declare tool_calls: { id: string; name: string; arguments: unknown }[] | null;

  @Column(DataType.TEXT)
  declare tool_call_id: string | null;

  @Column(DataType.JSONB)
  declare metadata: Record<string, unknown> | null;

  @Default(false)
  @Column(DataType.BOOLEAN)
  declare has_usage: boolean;

  @Column(DataType.BIGINT)
  declare input_tokens: string | number | null;

  @Column(DataType.BIGINT)
  declare output_tokens: string | number | null;

  @Column(DataType.BIGINT)
  declare cache_creation_input_tokens: string | number | null;

  @Column(DataType.BIGINT)
  declare cache_read_input_tokens: string | number | null;

  @Column(DataType.DOUBLE)
  declare cost_usd: number | null;

  @Default(0)
  @Column(DataType.INTEGER)
  declare tool_call_count: number;

  @Default(false)
  @Column(DataType.BOOLEAN)
  declare is_summary: boolean;

  @Column(DataType.DATE)
  declare compacted_at: Date | null;

  /** The seq of the summary of the compaction that compacted it (a rewind deleting that summary undoes it). */
  @Column(DataType.INTEGER)
  declare compacted_by: number | null;

  @CreatedAt
  declare created_at: Date;
}

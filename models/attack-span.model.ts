import { Column, CreatedAt, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

/** One attack of an assessment, as ingested from traces; (assessment_id, seq) is its ingest order. */
@Table({ tableName: 'airt_attack_spans', underscored: true, updatedAt: false })
export class AttackSpanModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  declare assessment_id: string;

  @PrimaryKey
  @Column(DataType.INTEGER)
  declare seq: number;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.UUID)
  declare workspace_id: string;

  @Column(DataType.TEXT)
  declare attack_name: string;

  @Column(DataType.TEXT)
  declare goal: string;

  @Column(DataType.TEXT)
  declare goal_category: string;

  @Column(DataType.DOUBLE)
  declare asr: number;

  @Column(DataType.TEXT)
  declare attacker_model: string;

  @Column(DataType.TEXT)
  declare target_model: string;

  @Column(DataType.TEXT)
  declare evaluator_model: string;

  @Column(DataType.TEXT)
  declare best_candidate: string;

  @Column(DataType.JSONB)
  declare best_candidate_parts: Record<string, unknown>[] | null;

  @Column(DataType.TEXT)
  declare best_response: string;

  @Column(DataType.JSONB)
  declare best_response_parts: Record<string, unknown>[] | null;

  @Column(DataType.JSONB)
  declare best_modality_scores: Record<string, number> | null;

  @Column(DataType.DOUBLE)
  declare best_score: number;

  @Column(DataType.TEXT)
  declare category: string;

  @Column(DataType.TEXT)
  declare sub_category: string;

  @Column(DataType.DOUBLE)
  declare execution_time_s: number;

  @Column(DataType.INTEGER)
  declare finished_trials: number;

  @Column(DataType.INTEGER)
  declare total_trials: number;

  @Column(DataType.BOOLEAN)
  declare is_jailbreak: boolean;

  @Column(DataType.TEXT)
  declare span_id: string;

  @Column(DataType.TEXT)
  declare trace_id: string;

  @Column(DataType.JSONB)
  declare transforms: string[];

  @CreatedAt
  declare created_at: Date;
}

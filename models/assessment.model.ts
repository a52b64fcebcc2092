import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

export const ASSESSMENT_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type AssessmentStatus = (typeof ASSESSMENT_STATUSES)[number];

/** A red-team assessment; its analytics columns are recomputed by PostgreSQL on every attack-span ingest. */
@Table({ tableName: 'airt_assessments', underscored: true })
export class AssessmentModel extends Model {
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

  @Column(DataType.UUID)
  declare user_id: string;

  @Column(DataType.UUID)
  declare session_id: string | null;

  @Column(DataType.TEXT)
  declare name: string;

  @Column(DataType.TEXT)
  declare description: string | null;

  @Default('pending')
  @Column(DataType.TEXT)
  declare status: AssessmentStatus;

  @Column(DataType.UUID)
  declare runtime_id: string | null;

  @Column(DataType.UUID)
  declare sandbox_id: string | null;

  @Column(DataType.JSONB)
  declare attack_manifest: Record<string, unknown>[] | null;

  @Column(DataType.JSONB)
  declare attacker_config: Record<string, unknown> | null;

  @Column(DataType.JSONB)
  declare target_config: Record<string, unknown> | null;

  @Column(DataType.TEXT)
  declare attacker_model: string | null;

  @Column(DataType.TEXT)
  declare judge_model: string | null;

  @Column(DataType.TEXT)
  declare target_model: string | null;

  @Column(DataType.TEXT)
  declare workflow_run_id: string | null;

  @Column(DataType.TEXT)
  declare workflow_script: string | null;

  @Column(DataType.JSONB)
  declare sandbox_detail: Record<string, unknown> | null;

  @Column(DataType.DOUBLE)
  declare overall_asr: number | null;

  @Column(DataType.DOUBLE)
  declare risk_score: number | null;

  @Column(DataType.JSONB)
  declare analytics_snapshot: Record<string, unknown> | null;

  @Default(0)
  @Column(DataType.INTEGER)
  declare total_attacks: number;

  /** bigint: pg returns it as a string. */
  @Default(0)
  @Column(DataType.BIGINT)
  declare total_trials: string | number;

  @Default(0)
  @Column(DataType.INTEGER)
  declare attack_seq: number;

  @Column(DataType.DATE)
  declare started_at: Date | null;

  @Column(DataType.DATE)
  declare completed_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

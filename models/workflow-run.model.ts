import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

export const WORKFLOW_RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];

/** One run of a workflow definition in a project. */
@Table({ tableName: 'workflow_runs', underscored: true })
export class WorkflowRunModel extends Model {
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
  declare definition_id: string;

  @Column(DataType.UUID)
  declare runtime_id: string | null;

  @Column(DataType.UUID)
  declare session_group_id: string | null;

  @Column(DataType.TEXT)
  declare host_kind: string;

  @Default('pending')
  @Column(DataType.TEXT)
  declare status: WorkflowRunStatus;

  @Column(DataType.TEXT)
  declare title: string | null;

  @Column(DataType.TEXT)
  declare error: string | null;

  @Default(0)
  @Column(DataType.INTEGER)
  declare last_fact_seq: number;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @Column(DataType.DATE)
  declare started_at: Date | null;

  @Column(DataType.DATE)
  declare finished_at: Date | null;

  @Column(DataType.DATE)
  declare run_heartbeat_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** One row of `evaluations` (migration 0040); the service writes it with SQL, see src/modules/evaluations. */
@Table({ tableName: 'evaluations', underscored: true })
export class EvaluationModel extends Model {
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
  declare name: string;

  @Column(DataType.TEXT)
  declare kind: string;

  @Column(DataType.TEXT)
  declare model: string | null;

  @Column(DataType.TEXT)
  declare job_status: string;

  @Column(DataType.JSONB)
  declare config_json: Record<string, unknown> | null;

  @Column(DataType.INTEGER)
  declare dataset_size: number;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

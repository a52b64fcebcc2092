import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** One row of `task_sets` (migration 0020); read paths select plain rows, see src/modules/catalogs. */
@Table({ tableName: 'task_sets', underscored: true })
export class TaskSetModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.TEXT)
  declare name: string;

  @Column(DataType.TEXT)
  declare description: string | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare members: string[];

  @Column(DataType.BOOLEAN)
  declare is_public: boolean;

  @Column(DataType.TEXT)
  declare source: string | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare tags: string[] | null;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

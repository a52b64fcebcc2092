import { Column, DataType, Default, Model, PrimaryKey, Table } from 'sequelize-typescript';

/** One row of `evaluation_items` (migration 0040); written with SQL by src/modules/evaluations. */
@Table({ tableName: 'evaluation_items', underscored: true, timestamps: false })
export class EvaluationItemModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare evaluation_id: string;

  @Column(DataType.UUID)
  declare task_id: string | null;

  @Column(DataType.TEXT)
  declare task_name: string;

  @Column(DataType.TEXT)
  declare task_version: string | null;

  @Column(DataType.TEXT)
  declare status: string;

  @Column(DataType.INTEGER)
  declare attempt: number;
}

import { Column, DataType, Default, Model, PrimaryKey, Table } from 'sequelize-typescript';

export const DATASET_ACTIONS = ['publish', 'download', 'delete'] as const;
export type DatasetAction = (typeof DATASET_ACTIONS)[number];

/**
 * One publish, download or delete of a dataset version (migration 0065), kept
 * by the organization of the route it happened on; the dataset is named as it
 * was, so the row outlives the version. Read paths select plain rows.
 */
@Table({ tableName: 'dataset_activity', underscored: true, timestamps: false })
export class DatasetActivityModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.UUID)
  declare dataset_id: string | null;

  @Column(DataType.TEXT)
  declare dataset_owner: string;

  @Column(DataType.TEXT)
  declare dataset_name: string;

  @Column(DataType.TEXT)
  declare version: string;

  @Column(DataType.UUID)
  declare user_id: string | null;

  @Column(DataType.TEXT)
  declare action: DatasetAction;

  @Column(DataType.TEXT)
  declare format: string | null;

  /** Set by the database (now(), the transaction's time). */
  @Column(DataType.DATE)
  declare created_at: Date;
}

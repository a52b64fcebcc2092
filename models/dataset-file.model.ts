import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

/** One published file of a dataset version (migration 0065), with its optional split. */
@Table({ tableName: 'dataset_files', underscored: true, timestamps: false })
export class DatasetFileModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  declare dataset_id: string;

  @PrimaryKey
  @Column(DataType.TEXT)
  declare path: string;

  @Column(DataType.TEXT)
  declare split: string | null;

  @Column(DataType.BLOB)
  declare content: Buffer;

  @Column(DataType.TEXT)
  declare sha256: string;

  @Column(DataType.INTEGER)
  declare size_bytes: number;
}

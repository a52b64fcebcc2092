import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

/** One published file of a capability version (migration 0020). */
@Table({ tableName: 'capability_files', underscored: true, timestamps: false })
export class CapabilityFileModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  declare capability_id: string;

  @PrimaryKey
  @Column(DataType.TEXT)
  declare path: string;

  @Column(DataType.TEXT)
  declare sha256: string;

  @Column(DataType.INTEGER)
  declare size_bytes: number;

  @Column(DataType.BLOB)
  declare content: Buffer;
}

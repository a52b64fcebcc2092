import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** One row of `datasets` (migration 0020); read paths select plain rows, see src/modules/catalogs. */
@Table({ tableName: 'datasets', underscored: true })
export class DatasetModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.TEXT)
  declare name: string;

  @Column(DataType.TEXT)
  declare version: string;

  @Column(DataType.TEXT)
  declare version_key: string;

  @Column(DataType.BOOLEAN)
  declare is_latest: boolean;

  @Column(DataType.BOOLEAN)
  declare is_public: boolean;

  @Column(DataType.TEXT)
  declare format: string;

  @Column(DataType.TEXT)
  declare pretty_name: string | null;

  @Column(DataType.TEXT)
  declare summary: string | null;

  @Column(DataType.TEXT)
  declare license: string | null;

  @Column(DataType.TEXT)
  declare size_category: string | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare language: string[] | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare tags: string[] | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare task_categories: string[] | null;

  @Column(DataType.INTEGER)
  declare column_count: number | null;

  @Column(DataType.BIGINT)
  declare row_count: number | null;

  @Column(DataType.BIGINT)
  declare file_size_bytes: number | null;

  @Column(DataType.INTEGER)
  declare download_count: number;

  @Column(DataType.JSONB)
  declare origin: Record<string, unknown>;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

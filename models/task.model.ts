import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** One row of `tasks` (migration 0020); read paths select plain rows, see src/modules/catalogs. */
@Table({ tableName: 'tasks', underscored: true })
export class TaskModel extends Model {
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
  declare description: string | null;

  @Column(DataType.TEXT)
  declare author: string | null;

  @Column(DataType.TEXT)
  declare difficulty: string | null;

  @Column(DataType.TEXT)
  declare license: string | null;

  @Column(DataType.TEXT)
  declare oci_digest: string | null;

  @Column(DataType.TEXT)
  declare source: string | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare tags: string[] | null;

  @Column(DataType.JSONB)
  declare ports: Record<string, number[]> | null;

  @Column(DataType.JSONB)
  declare verification: Record<string, unknown> | null;

  @Column(DataType.BIGINT)
  declare file_size: number;

  @Column(DataType.TEXT)
  declare template_status: string;

  @Column(DataType.TEXT)
  declare sandbox_provider: string;

  @Column(DataType.TEXT)
  declare readme: string | null;

  @Column(DataType.TEXT)
  declare instruction: string | null;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

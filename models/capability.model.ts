import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** One row of `capabilities` (migration 0020); read paths select plain rows, see src/modules/catalogs. */
@Table({ tableName: 'capabilities', underscored: true })
export class CapabilityModel extends Model {
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
  declare author_name: string | null;

  @Column(DataType.TEXT)
  declare license: string | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare keywords: string[];

  @Column(DataType.JSONB)
  declare origin: Record<string, unknown>;

  @Column(DataType.JSONB)
  declare manifest: Record<string, unknown>;

  @Column(DataType.JSONB)
  declare component_details: unknown[];

  @Column(DataType.JSONB)
  declare component_counts: Record<string, number>;

  @Column(DataType.JSONB)
  declare secrets: unknown[];

  @Column(DataType.JSONB)
  declare file_manifest: unknown[];

  @Column(DataType.TEXT)
  declare artifact_sha256: string;

  @Column(DataType.TEXT)
  declare runtime_digest: string;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

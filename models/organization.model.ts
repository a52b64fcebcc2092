import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

@Table({ tableName: 'organizations', underscored: true })
export class OrganizationModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.CITEXT)
  declare key: string;

  @Column(DataType.TEXT)
  declare name: string;

  @Column(DataType.TEXT)
  declare description: string | null;

  @Default(true)
  @Column(DataType.BOOLEAN)
  declare is_active: boolean;

  @Default(false)
  @Column(DataType.BOOLEAN)
  declare is_personal: boolean;

  @Default('free')
  @Column(DataType.TEXT)
  declare plan_type: string;

  @Column(DataType.INTEGER)
  declare max_members: number | null;

  @Column(DataType.INTEGER)
  declare max_sandbox_runtime_seconds: number | null;

  @Column(DataType.INTEGER)
  declare default_sandbox_runtime_seconds: number | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

/** An organization row as plain columns. */
export type OrganizationRecord = Pick<
  OrganizationModel,
  'id' | 'key' | 'name' | 'description' | 'is_active' | 'is_personal' | 'plan_type' | 'max_members' | 'max_sandbox_runtime_seconds' | 'default_sandbox_runtime_seconds' | 'created_at' | 'updated_at'
>;

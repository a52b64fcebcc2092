import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

@Table({ tableName: 'workspaces', underscored: true })
export class WorkspaceModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.TEXT)
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
  declare is_default: boolean;

  @Column(DataType.UUID)
  declare created_by: string | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

/** A workspace row as plain columns. */
export type WorkspaceRecord = Pick<
  WorkspaceModel,
  'id' | 'organization_id' | 'key' | 'name' | 'description' | 'is_active' | 'is_default' | 'created_by' | 'created_at' | 'updated_at'
>;

import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** A user's API key. Only the sha256 of the key is stored; never mapped as is. */
@Table({ tableName: 'api_keys', underscored: true })
export class ApiKeyModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare user_id: string;

  @Column(DataType.TEXT)
  declare name: string | null;

  /** sha256 hex of the full key. */
  @Column(DataType.TEXT)
  declare key_hash: string;

  /** `apk_abcd…wxyz`, safe to show. */
  @Column(DataType.TEXT)
  declare masked_key: string;

  @Default(false)
  @Column(DataType.BOOLEAN)
  declare allow_self_revoke: boolean;

  @Column(DataType.UUID)
  declare organization_id: string | null;

  @Column(DataType.UUID)
  declare workspace_id: string | null;

  @Column(DataType.ARRAY(DataType.TEXT))
  declare allowed_scopes: string[] | null;

  @Column(DataType.DATE)
  declare revoked_at: Date | null;

  @Column(DataType.DATE)
  declare last_used_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

@Table({ tableName: 'users', underscored: true })
export class UserModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.CITEXT)
  declare email: string;

  @Column(DataType.CITEXT)
  declare username: string;

  @Column(DataType.TEXT)
  declare full_name: string | null;

  /** scrypt hash; never mapped to a GraphQL type. */
  @Column(DataType.TEXT)
  declare password_hash: string;

  @Default(false)
  @Column(DataType.BOOLEAN)
  declare email_opt_in: boolean;

  /** Bumped on password reset: every JWT carrying an older value is refused. */
  @Default(0)
  @Column(DataType.INTEGER)
  declare token_version: number;

  @Default(false)
  @Column(DataType.BOOLEAN)
  declare is_suspended: boolean;

  @Column(DataType.DATE)
  declare email_verified_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

/** A user as the request path carries it: plain columns, never the password hash. */
export type UserRecord = Pick<
  UserModel,
  'id' | 'email' | 'username' | 'full_name' | 'email_opt_in' | 'token_version' | 'is_suspended' | 'email_verified_at' | 'created_at' | 'updated_at'
>;

export const USER_RECORD_COLUMNS = [
  'id', 'email', 'username', 'full_name', 'email_opt_in', 'token_version', 'is_suspended', 'email_verified_at', 'created_at', 'updated_at',
] as const;

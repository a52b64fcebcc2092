import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** What a mailed single-use token is for; one is never accepted for the other. */
export type AccountTokenPurpose = 'password_reset' | 'email_verification';

/** A single-use token mailed to a user (password reset, e-mail verification); only its sha256 is stored. */
@Table({ tableName: 'password_reset_tokens', underscored: true })
export class PasswordResetTokenModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare user_id: string;

  @Column(DataType.TEXT)
  declare token_hash: string;

  @Default('password_reset')
  @Column(DataType.TEXT)
  declare purpose: AccountTokenPurpose;

  @Column(DataType.DATE)
  declare expires_at: Date;

  @Column(DataType.DATE)
  declare used_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

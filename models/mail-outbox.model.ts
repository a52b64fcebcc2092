import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

/** Mail kept for developers when no SMTP server is configured (SMTP_URL unset). */
@Table({ tableName: 'mail_outbox', underscored: true })
export class MailOutboxModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.TEXT)
  declare to_address: string;

  @Column(DataType.TEXT)
  declare subject: string;

  @Column(DataType.TEXT)
  declare body_text: string;

  /** What the mail is for, e.g. `password_reset`. */
  @Column(DataType.TEXT)
  declare kind: string;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

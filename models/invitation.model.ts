import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';
import { ROLES, type Role } from './membership.model';

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** An invitation of an e-mail address into an organization (migration 0050). `email` is stored lower-cased. */
@Table({ tableName: 'invitations', underscored: true })
export class InvitationModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.TEXT)
  declare email: string;

  @Column(DataType.ENUM(...ROLES))
  declare role: Role;

  @Column(DataType.UUID)
  declare invited_by: string;

  @Default('pending')
  @Column(DataType.TEXT)
  declare status: InvitationStatus;

  @Column(DataType.DATE)
  declare expires_at: Date;

  @Column(DataType.DATE)
  declare responded_at: Date | null;

  /** When it was last mailed (migration 0073): the re-mail window runs from here. */
  @Column(DataType.DATE)
  declare mailed_at: Date | null;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

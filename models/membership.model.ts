import { Column, CreatedAt, DataType, Default, Model, PrimaryKey, Table, UpdatedAt } from 'sequelize-typescript';

export const ROLES = ['owner', 'contributor', 'reader'] as const;
export type Role = (typeof ROLES)[number];

@Table({ tableName: 'memberships', underscored: true })
export class MembershipModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare organization_id: string;

  @Column(DataType.UUID)
  declare user_id: string;

  @Column(DataType.ENUM(...ROLES))
  declare role: Role;

  @CreatedAt
  declare created_at: Date;

  @UpdatedAt
  declare updated_at: Date;
}

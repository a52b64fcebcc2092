import { Sequelize } from 'sequelize-typescript';
import { MembershipModel } from './membership.model';
import { OrganizationModel } from './organization.model';
import { ProjectModel } from './project.model';
import { UserModel } from './user.model';
import { WorkspaceModel } from './workspace.model';

export { MembershipModel, OrganizationModel, ProjectModel, UserModel, WorkspaceModel };
export { ROLES, type Role } from './membership.model';

/** Every model, registered explicitly (no directory scanning). */
export const MODELS = [UserModel, OrganizationModel, MembershipModel, WorkspaceModel, ProjectModel];

export function createSequelize(url: string, options: { poolMax: number; logSql?: (sql: string) => void }): Sequelize {
  return new Sequelize(url, {
    dialect: 'postgres',
    models: MODELS,
    logging: options.logSql ?? false,
    pool: { max: options.poolMax, min: 0, idle: 10000 },
    define: { underscored: true },
  });
}

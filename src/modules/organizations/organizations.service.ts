import type { Transaction } from 'sequelize';
import { MembershipModel, OrganizationModel, type UserModel } from '../../../models';
import { insertWorkspace } from '../workspaces/workspaces.service';

/**
 * A new user's personal organization: key = username, the user its owner,
 * with a default workspace (`default`) holding a default project.
 */
export async function createPersonalOrganization(user: UserModel, transaction: Transaction): Promise<OrganizationModel> {
  const org = await OrganizationModel.create(
    { key: user.username, name: user.full_name || user.username, is_personal: true },
    { transaction },
  );
  await MembershipModel.create({ organization_id: org.id, user_id: user.id, role: 'owner' }, { transaction });
  await insertWorkspace(
    { organization_id: org.id, key: 'default', name: 'Default', is_default: true, created_by: user.id },
    transaction,
  );
  return org;
}

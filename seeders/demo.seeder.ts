import { MembershipModel, OrganizationModel, ProjectModel, UserModel, WorkspaceModel } from '../models';
import { database } from '../src/db/database';
import { signAccessToken } from '../src/context/jwt';
import { hashPassword } from '../src/modules/accounts/password';

/** Fixed ids so demo links and docs stay stable across machines. */
export const DEMO = {
  userId: '00000000-0000-4000-8000-000000000001',
  orgId: '00000000-0000-4000-8000-000000000010',
  workspaceId: '00000000-0000-4000-8000-000000000100',
  projectId: '00000000-0000-4000-8000-000000001000',
  email: 'demo@example.com',
  username: 'demo',
  password: 'demo-password',
  orgKey: 'demo',
};

/**
 * Creates the demo user, organization, workspace and project when the
 * database has no users yet. Returns the demo credentials and a token.
 */
export async function seedDemo(): Promise<{ email: string; password: string; token: string; orgKey: string } | null> {
  const existing = await UserModel.findByPk(DEMO.userId);
  if (!existing && (await UserModel.count()) > 0) return null;
  const user =
    existing ??
    (await database().transaction(async (transaction) => {
      const created = await UserModel.create(
        {
          id: DEMO.userId,
          email: DEMO.email,
          username: DEMO.username,
          full_name: 'Demo User',
          password_hash: await hashPassword(DEMO.password),
          email_verified_at: new Date(),
        },
        { transaction },
      );
      await OrganizationModel.create({ id: DEMO.orgId, key: DEMO.orgKey, name: 'Demo Organization', is_personal: true }, { transaction });
      await MembershipModel.create({ organization_id: DEMO.orgId, user_id: DEMO.userId, role: 'owner' }, { transaction });
      await WorkspaceModel.create(
        { id: DEMO.workspaceId, organization_id: DEMO.orgId, key: 'default', name: 'Default', is_default: true, created_by: DEMO.userId },
        { transaction },
      );
      await ProjectModel.create(
        {
          id: DEMO.projectId,
          organization_id: DEMO.orgId,
          workspace_id: DEMO.workspaceId,
          key: 'default',
          name: 'Default',
          is_default: true,
          created_by: DEMO.userId,
        },
        { transaction },
      );
      return created;
    }));
  return { email: DEMO.email, password: DEMO.password, token: signAccessToken(user), orgKey: DEMO.orgKey };
}

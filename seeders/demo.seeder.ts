import { MembershipModel, OrganizationModel, ProjectModel, SessionModel, UserModel, WorkspaceModel } from '../models';
import { createContext } from '../src/context/context';
import { database } from '../src/db/database';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { hashPassword } from '../src/modules/accounts/password';
import { createSessionGroup } from '../src/modules/session-groups/session-groups.service';
import { SessionGroupKindEnum, SessionGroupStatusEnum } from '../src/modules/session-groups/session-groups.types';
import { saveSession } from '../src/modules/sessions/sessions.service';
import { appendTranscript } from '../src/modules/sessions/transcript.service';
import { SessionOriginEnum, SessionVisibilityEnum } from '../src/modules/sessions/sessions.types';

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
  const token = signAccessToken(user);
  if (!existing) await seedDemoSessions(token);
  return { email: DEMO.email, password: DEMO.password, token, orgKey: DEMO.orgKey };
}

/**
 * A few sessions with transcripts, labels and a worker-run group, written
 * through the services (as the demo user) so derived fields stay consistent.
 */
async function seedDemoSessions(token: string): Promise<void> {
  if (await SessionModel.count({ where: { workspace_id: DEMO.workspaceId } })) return;
  const ctx = await createContext({ headers: { get: (name) => (name === 'authorization' ? `Bearer ${token}` : null) }, ip: '127.0.0.1' });
  const group = await createSessionGroup(ctx, DEMO.orgKey, 'default', {
    kind: SessionGroupKindEnum.worker_run,
    project_id: DEMO.projectId,
    title: 'Nightly triage run',
    worker: 'triage-bot',
    status: SessionGroupStatusEnum.running,
  } as never);
  const sessions = [
    { id: '00000000-0000-4000-8000-00000000a001', title: 'Investigate flaky login test', agent: 'coder', model: 'claude-sonnet', labels: { env: ['dev'], team: ['platform'] } },
    { id: '00000000-0000-4000-8000-00000000a002', title: 'Summarise red-team findings', agent: 'analyst', model: 'claude-opus', labels: { env: ['prod'], team: ['security'] } },
    { id: '00000000-0000-4000-8000-00000000a003', title: 'Triage incoming issues', agent: 'triage', model: 'claude-haiku', labels: { env: ['prod'] }, group_id: group.id, origin: SessionOriginEnum.worker },
  ];
  for (const session of sessions) {
    await saveSession(ctx, DEMO.orgKey, 'default', {
      ...session,
      project_id: DEMO.projectId,
      visibility: SessionVisibilityEnum.workspace,
      origin: session.origin ?? SessionOriginEnum.user,
      message_count: 0,
    } as never);
    await appendTranscript(ctx, DEMO.orgKey, 'default', session.id, {
      messages: [
        { role: 'user', content: `Please help: ${session.title.toLowerCase()}.` },
        {
          role: 'assistant',
          content: 'On it. Here is what I found so far.',
          usage: { input_tokens: 1200, output_tokens: 350, cache_creation_input_tokens: 0, cache_read_input_tokens: 800, cost_usd: 0.0123 },
        },
      ],
    } as never);
  }
}

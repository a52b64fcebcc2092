import type { Role } from '../../models';
import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';
import type { TestUser } from './accounts';

/** Invites `user` into `orgKey` as `inviter` and returns the invitation's id, as `user` lists it. */
export async function invite(api: TestApp, inviter: TestUser, orgKey: string, user: TestUser, role: Role): Promise<string> {
  const sent = await rest(api, 'POST', `/org/${orgKey}/members`, { token: inviter.token, body: { email: user.email, role } });
  if (sent.status !== 202) throw new Error(`invite answered ${sent.status} ${JSON.stringify(sent.body)}`);
  const listed = await rest(api, 'GET', '/user/invitations', { token: user.token });
  const found = (listed.body as { id: string; org_key: string }[]).find((item) => item.org_key === orgKey);
  if (!found) throw new Error(`no invitation into ${orgKey} for ${user.email}`);
  return found.id;
}

/** Adds a member the way the API does: `inviter` invites, `user` accepts. For setup without the API, see addMember in accounts.ts. */
export async function inviteAndAccept(api: TestApp, inviter: TestUser, orgKey: string, user: TestUser, role: Role): Promise<void> {
  const id = await invite(api, inviter, orgKey, user, role);
  const accepted = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: user.token });
  if (accepted.status !== 201) throw new Error(`accept answered ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

import pg from 'pg';
import { ApiKeyModel, InvitationModel, MembershipModel, OrganizationModel } from '../../../models';
import { addMember, createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { untilBlocked } from '../../helpers/locks';
import { operation, runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();

let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let outsider: TestUser;
let orgKey: string;

beforeAll(async () => {
  ({ owner, contributor, reader, outsider, orgKey } = await createOrgWithRoles());
});

async function orgRow(key: string): Promise<OrganizationModel> {
  return (await OrganizationModel.findOne({ where: { key } }))!;
}

describe('GET ORG/members', () => {
  it('lists every member as a bare array with the member fields, for any member', async () => {
    const res = await rest(api, 'GET', `/org/${orgKey}/members`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((member: { user_id: string }) => member.user_id)).toEqual([owner.id, contributor.id, reader.id]);
    expect(res.body[0]).toEqual({
      user_id: owner.id,
      email: owner.email,
      username: owner.username,
      full_name: null,
      role: 'owner',
      joined_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(res.body.map((member: { role: string }) => member.role)).toEqual(['owner', 'contributor', 'reader']);
  });

  it("hides another organization's member list with 404", async () => {
    const res = await rest(api, 'GET', `/org/${orgKey}/members`, { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('answers 404 for an unknown organization', async () => {
    const res = await rest(api, 'GET', '/org/no-such-org-here/members', { token: owner.token });
    expect(res.status).toBe(404);
  });

  it('requires authentication', async () => {
    const res = await rest(api, 'GET', `/org/${orgKey}/members`);
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
  });

  it('lists members through GraphQL', async () => {
    const res = await runOperation(api, 'Members', { org: orgKey }, contributor.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.members).toHaveLength(3);
  });
});

// Adding a member (POST ORG/members) is an invitation: invitations.test.ts.

describe('PATCH ORG/members/{user_id}', () => {
  it("changes a member's role", async () => {
    const { owner: boss, contributor: member, orgKey: org } = await createOrgWithRoles();
    const res = await rest(api, 'PATCH', `/org/${org}/members/${member.id}`, { token: boss.token, body: { role: 'reader' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: member.id, role: 'reader', email: member.email });
    const write = await rest(api, 'POST', `/org/${org}/ws`, { token: member.token, body: { key: 'after-demotion', name: 'After' } });
    expect(write.status).toBe(403);
  });

  it('refuses to demote the last owner with 409 conflict_error', async () => {
    const res = await rest(api, 'PATCH', `/org/${orgKey}/members/${owner.id}`, { token: owner.token, body: { role: 'contributor' } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
  });

  it('lets an owner step down once another owner exists', async () => {
    const { owner: boss, contributor: member, orgKey: org } = await createOrgWithRoles();
    expect((await rest(api, 'PATCH', `/org/${org}/members/${member.id}`, { token: boss.token, body: { role: 'owner' } })).status).toBe(200);
    const res = await rest(api, 'PATCH', `/org/${org}/members/${boss.id}`, { token: boss.token, body: { role: 'reader' } });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('reader');
  });

  it('keeps one owner when two owners demote each other at the same time', async () => {
    const { owner: first, contributor: second, orgKey: org } = await createOrgWithRoles();
    expect((await rest(api, 'PATCH', `/org/${org}/members/${second.id}`, { token: first.token, body: { role: 'owner' } })).status).toBe(200);
    const results = await Promise.all([
      rest(api, 'PATCH', `/org/${org}/members/${second.id}`, { token: first.token, body: { role: 'reader' } }),
      rest(api, 'DELETE', `/org/${org}/members/${first.id}`, { token: first.token }),
      rest(api, 'PATCH', `/org/${org}/members/${first.id}`, { token: second.token, body: { role: 'reader' } }),
    ]);
    const organization = await orgRow(org);
    expect(await MembershipModel.count({ where: { organization_id: organization.id, role: 'owner' } })).toBe(1);
    // Depending on the order, a later request finds its caller demoted (403) or removed (404), or the last owner (409).
    for (const res of results) expect([200, 403, 404, 409]).toContain(res.status);
    expect(results.some((res) => res.status !== 200)).toBe(true);
  });

  it("rejects a contributor's role change with 403", async () => {
    const res = await rest(api, 'PATCH', `/org/${orgKey}/members/${reader.id}`, { token: contributor.token, body: { role: 'owner' } });
    expect(res.status).toBe(403);
  });

  it('rejects a malformed user id with 422 uuid_parsing at the path', async () => {
    const res = await rest(api, 'PATCH', `/org/${orgKey}/members/not-a-uuid`, { token: owner.token, body: { role: 'nope' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['path', 'user_id'], type: 'uuid_parsing' }),
        expect.objectContaining({ loc: ['body', 'role'], type: 'enum' }),
      ]),
    );
  });

  it('answers 404 for a user who is not a member, including members of other organizations', async () => {
    const res = await rest(api, 'PATCH', `/org/${orgKey}/members/${outsider.id}`, { token: owner.token, body: { role: 'reader' } });
    expect(res.status).toBe(404);
  });

  it('changes a role through GraphQL', async () => {
    const { owner: boss, reader: member, orgKey: org } = await createOrgWithRoles();
    const res = await runOperation(api, 'UpdateMember', { org, user_id: member.id, input: { role: 'contributor' } }, boss.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.update_member.role).toBe('contributor');
  });
});

describe('DELETE ORG/members/{user_id}', () => {
  it('lets the owner remove a member and answers a JSON body', async () => {
    const { owner: boss, contributor: member, orgKey: org } = await createOrgWithRoles();
    const res = await rest(api, 'DELETE', `/org/${org}/members/${member.id}`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_id: member.id, removed: true });
    const after = await rest(api, 'GET', `/org/${org}/members`, { token: member.token });
    expect(after.status).toBe(404);
  });

  it('lets a reader remove themselves', async () => {
    const { reader: member, orgKey: org } = await createOrgWithRoles();
    const res = await rest(api, 'DELETE', `/org/${org}/members/${member.id}`, { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_id: member.id, removed: true });
  });

  it("rejects a contributor's removal of another member with 403", async () => {
    const res = await rest(api, 'DELETE', `/org/${orgKey}/members/${reader.id}`, { token: contributor.token });
    expect(res.status).toBe(403);
  });

  it('refuses to let the last owner leave with 409 conflict_error', async () => {
    const res = await rest(api, 'DELETE', `/org/${orgKey}/members/${owner.id}`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
  });

  it('lets an owner leave when another owner remains', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const second = await createUser();
    await addMember(org, second, 'owner');
    const res = await rest(api, 'DELETE', `/org/${org}/members/${boss.id}`, { token: boss.token });
    expect(res.status).toBe(200);
  });

  it("hides another organization's member with 404", async () => {
    const res = await rest(api, 'DELETE', `/org/${orgKey}/members/${reader.id}`, { token: outsider.token });
    expect(res.status).toBe(404);
    const foreignId = await rest(api, 'DELETE', `/org/${outsider.orgKey}/members/${reader.id}`, { token: outsider.token });
    expect(foreignId.status).toBe(404);
  });

  it('removes a member through GraphQL', async () => {
    const { owner: boss, reader: member, orgKey: org } = await createOrgWithRoles();
    const res = await runOperation(api, 'RemoveMember', { org, user_id: member.id }, boss.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.remove_member).toEqual({ user_id: member.id, removed: true });
  });
});

describe('API keys on member routes', () => {
  async function apiKey(user: TestUser, body: Record<string, unknown>): Promise<string> {
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'members-test', ...body } });
    expect(res.status).toBe(201);
    return res.body.key;
  }

  it('lets a read-only key list members but not invite one', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const key = await apiKey(boss, { allowed_scopes: [] });
    const list = await rest(api, 'GET', `/org/${org}/members`, { headers: { 'x-api-key': key } });
    expect(list.status).toBe(200);
    const someone = await createUser();
    const invite = await rest(api, 'POST', `/org/${org}/members`, { headers: { 'x-api-key': key }, body: { email: someone.email, role: 'reader' } });
    expect(invite.status).toBe(403);
  });

  it("hides the organization's members, invitations and chat integration from a workspace-limited owner's key with 404 (they lie in no workspace)", async () => {
    const { owner: boss, reader: member, orgKey: org } = await createOrgWithRoles();
    const workspace = await rest(api, 'GET', `/org/${org}/ws/default`, { token: boss.token });
    const key = await apiKey(boss, { workspace_id: workspace.body.id });
    const someone = await createUser();
    const sent = await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email: someone.email, role: 'reader' } });
    expect(sent.status).toBe(202);
    const [invitation] = (await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token })).body as { id: string }[];
    const requests: [string, string, unknown][] = [
      ['GET', `/org/${org}/members`, undefined],
      ['PATCH', `/org/${org}/members/${member.id}`, { role: 'contributor' }],
      ['DELETE', `/org/${org}/members/${member.id}`, undefined],
      ['DELETE', `/org/${org}/members/${boss.id}`, undefined],
      ['POST', `/org/${org}/members`, { email: (await createUser()).email, role: 'owner' }],
      ['GET', `/org/${org}/invitations`, undefined],
      ['DELETE', `/org/${org}/invitations/${invitation.id}`, undefined],
      ['GET', `/org/${org}/integrations/chat`, undefined],
      ['PUT', `/org/${org}/integrations/chat/settings`, { thread_detail: 'final' }],
    ];
    for (const [method, path, body] of requests) {
      const res = await rest(api, method, path, { headers: { 'x-api-key': key }, body });
      expect({ request: `${method} ${path}`, status: res.status, type: res.body.type }).toEqual({ request: `${method} ${path}`, status: 404, type: 'not_found_error' });
    }
    const graphql = await rest(api, 'POST', '/graphql', { headers: { 'x-api-key': key }, body: { query: operation('Members'), operationName: 'Members', variables: { org } } });
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND_ERROR');
    expect(graphql.body.data?.members ?? null).toBeNull();
    // Nothing changed, and the workspace itself and the organization's record stay readable with the key.
    expect(await MembershipModel.findOne({ where: { user_id: member.id, organization_id: (await orgRow(org)).id } })).toMatchObject({ role: 'reader' });
    expect(await InvitationModel.findByPk(invitation.id)).toMatchObject({ status: 'pending' });
    expect((await rest(api, 'GET', `/org/${org}/ws/default`, { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await rest(api, 'GET', `/org/${org}`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it("revokes a removed member's keys limited to the organization or one of its workspaces, so inviting them again does not bring the keys back", async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const member = await createUser();
    await addMember(org, member, 'contributor');
    const organization = await orgRow(org);
    const workspace = await rest(api, 'GET', `/org/${org}/ws/default`, { token: boss.token });
    const orgKey = await apiKey(member, { org_id: organization.id });
    const workspaceKey = await apiKey(member, { workspace_id: workspace.body.id });
    const anyOrgKey = await apiKey(member, {});
    const ownOrgKey = await apiKey(member, { org_id: (await orgRow(member.orgKey)).id });
    expect((await rest(api, 'DELETE', `/org/${org}/members/${member.id}`, { token: boss.token })).status).toBe(200);
    const active = (await rest(api, 'GET', '/user/api-keys', { token: member.token })).body as { masked_key: string }[];
    const masked = (key: string) => `${key.slice(0, 8)}…${key.slice(-4)}`;
    expect(active.map((item) => item.masked_key).sort()).toEqual([masked(anyOrgKey), masked(ownOrgKey)].sort());
    // Invited back: the revoked keys stay revoked (401), the unlimited one acts as the member again.
    await addMember(org, member, 'contributor');
    for (const key of [orgKey, workspaceKey]) expect((await rest(api, 'GET', `/org/${org}/ws/default`, { headers: { 'x-api-key': key } })).status).toBe(401);
    expect((await rest(api, 'GET', `/org/${org}/ws/default`, { headers: { 'x-api-key': anyOrgKey } })).status).toBe(200);
  });

  it('leaves no active key limited to the organization when its creation races the removal of its user', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const organization = await orgRow(org);
    for (let round = 0; round < 5; round += 1) {
      const member = await createUser();
      await addMember(org, member, 'reader');
      const [created, removed] = await Promise.all([
        rest(api, 'POST', '/user/api-keys', { token: member.token, body: { org_id: organization.id } }),
        rest(api, 'DELETE', `/org/${org}/members/${member.id}`, { token: boss.token }),
      ]);
      expect(removed.status).toBe(200);
      expect([201, 404]).toContain(created.status);
      expect(await ApiKeyModel.count({ where: { user_id: member.id, organization_id: organization.id, revoked_at: null } })).toBe(0);
    }
  });

  it("hides other organizations from an organization-limited key with 404", async () => {
    const { owner: boss } = await createOrgWithRoles();
    const second = await createUser();
    await addMember(second.orgKey, boss, 'owner');
    const organization = await orgRow(boss.orgKey);
    const key = await apiKey(boss, { org_id: organization.id });
    expect((await rest(api, 'GET', `/org/${boss.orgKey}/members`, { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await rest(api, 'GET', `/org/${second.orgKey}/members`, { headers: { 'x-api-key': key } })).status).toBe(404);
  });
});

describe('a member removed or demoted while their request waits for the organization', () => {
  // The caller's role is read when the request begins; membership changes take the organization's row lock.
  // A request that waits on that lock while the caller loses their place must not act on the role it read first.
  let locker: pg.Client;
  beforeAll(async () => {
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
  });
  afterAll(() => locker.end());

  /** Runs `request` while the organization's row is locked, applies `change` in that transaction, commits, and returns the reply. */
  async function whileLocked<T>(org: string, change: string, values: unknown[], request: () => Promise<T>): Promise<T> {
    await locker.query('BEGIN');
    try {
      await locker.query('SELECT 1 FROM organizations WHERE key = $1 FOR UPDATE', [org]);
      const pending = request();
      // The request has reached the lock.
      await untilBlocked(async (sql) => (await locker.query(sql)).rows, 'the request for the organization');
      await locker.query(change, values);
      await locker.query('COMMIT');
      return await pending;
    } catch (error) {
      await locker.query('ROLLBACK');
      throw error;
    }
  }

  /** An organization with three owners. */
  async function threeOwners(): Promise<{ boss: TestUser; second: TestUser; third: TestUser; org: string; id: string }> {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const [second, third] = [await createUser(), await createUser()];
    await addMember(org, second, 'owner');
    await addMember(org, third, 'owner');
    return { boss, second, third, org, id: (await orgRow(org)).id };
  }

  it('a removed owner does not remove another owner (404), nor change a role', async () => {
    const { boss, second, third, org, id } = await threeOwners();
    const removal = await whileLocked(org, 'DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', [id, second.id], () =>
      rest(api, 'DELETE', `/org/${org}/members/${third.id}`, { token: second.token }),
    );
    expect(removal.status).toBe(404);
    expect(removal.body.type).toBe('not_found_error');
    expect(await MembershipModel.findOne({ where: { organization_id: id, user_id: third.id } })).toMatchObject({ role: 'owner' });
    const demotion = await whileLocked(org, "UPDATE memberships SET role = 'reader' WHERE organization_id = $1 AND user_id = $2", [id, third.id], () =>
      rest(api, 'PATCH', `/org/${org}/members/${boss.id}`, { token: third.token, body: { role: 'reader' } }),
    );
    expect(demotion.status).toBe(403);
    expect(await MembershipModel.findOne({ where: { organization_id: id, user_id: boss.id } })).toMatchObject({ role: 'owner' });
  });

  it('an owner demoted meanwhile neither invites nor revokes an invitation (403)', async () => {
    const { boss, second, org, id } = await threeOwners();
    const someone = await createUser();
    const invite = await whileLocked(org, "UPDATE memberships SET role = 'contributor' WHERE organization_id = $1 AND user_id = $2", [id, second.id], () =>
      rest(api, 'POST', `/org/${org}/members`, { token: second.token, body: { email: someone.email, role: 'owner' } }),
    );
    expect(invite.status).toBe(403);
    expect(await InvitationModel.count({ where: { organization_id: id } })).toBe(0);
    const sent = await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email: someone.email, role: 'reader' } });
    expect(sent.status).toBe(202);
    const [invitation] = (await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token })).body as { id: string }[];
    const third = await createUser();
    await addMember(org, third, 'owner');
    const revoke = await whileLocked(org, "UPDATE memberships SET role = 'reader' WHERE organization_id = $1 AND user_id = $2", [id, third.id], () =>
      rest(api, 'DELETE', `/org/${org}/invitations/${invitation.id}`, { token: third.token }),
    );
    expect(revoke.status).toBe(403);
    expect(await InvitationModel.findByPk(invitation.id)).toMatchObject({ status: 'pending' });
  });
});

import { MembershipModel, OrganizationModel } from '../../../models';
import { addMember, createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
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

  it("rejects member management with a workspace-limited owner's key with 403", async () => {
    const { owner: boss, reader: member, orgKey: org } = await createOrgWithRoles();
    const workspace = await rest(api, 'GET', `/org/${org}/ws/default`, { token: boss.token });
    const key = await apiKey(boss, { workspace_id: workspace.body.id });
    const res = await rest(api, 'PATCH', `/org/${org}/members/${member.id}`, { headers: { 'x-api-key': key }, body: { role: 'contributor' } });
    expect(res.status).toBe(403);
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

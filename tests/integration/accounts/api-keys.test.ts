import { ApiKeyModel, WorkspaceModel } from '../../../models';
import { sha256 } from '../../../src/core/secrets';
import { addMember, createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { gql, rest, sendRaw } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

function withKey(key: string) {
  return { headers: { 'x-api-key': key } };
}

async function orgId(key: string): Promise<string> {
  const res = await rest(api, 'GET', `/org/${key}`, { token: user.token });
  return res.body.id;
}

describe('POST /user/api-keys', () => {
  it('creates a key with 201, shows it once and stores only its hash', async () => {
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'ci' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^apk_[A-Za-z0-9]{40}$/),
      masked_key: expect.stringMatching(/^apk_[A-Za-z0-9]{4}…[A-Za-z0-9]{4}$/),
      name: 'ci',
      active: true,
      allowed_scopes: null,
      created_at: expect.any(String),
      last_used_at: null,
    });
    const { key, masked_key: masked } = res.body;
    expect(key.split('.')).toHaveLength(1);
    expect(masked).toBe(`${key.slice(0, 8)}…${key.slice(-4)}`);
    const row = await ApiKeyModel.findByPk(res.body.id);
    expect(row!.key_hash).toBe(sha256(key));
    expect(JSON.stringify(row!.toJSON())).not.toContain(key);
  });

  it('accepts a null name and defaults allow_self_revoke to false', async () => {
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: null } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBeNull();
    const row = await ApiKeyModel.findByPk(res.body.id);
    expect(row!.allow_self_revoke).toBe(false);
  });

  it('rejects an unknown scope with 422 enum at body.allowed_scopes', async () => {
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { allowed_scopes: ['org:read', 'everything:please'] } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'allowed_scopes'], type: 'enum' })]);
  });

  it('rejects a malformed org_id with 422 uuid_parsing and a wrong type for allow_self_revoke with bool_parsing', async () => {
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { org_id: 'nope', allow_self_revoke: 'maybe' } });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: string[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(expect.arrayContaining([['body.org_id', 'uuid_parsing'], ['body.allow_self_revoke', 'bool_parsing']]));
  });

  it('rejects an organization the caller does not belong to with 404', async () => {
    const stranger = await createUser();
    const strangerOrg = await rest(api, 'GET', `/org/${stranger.orgKey}`, { token: stranger.token });
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { org_id: strangerOrg.body.id } });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it("rejects another organization's workspace with 404", async () => {
    const stranger = await createUser();
    const workspace = await rest(api, 'GET', `/org/${stranger.orgKey}/ws/default`, { token: stranger.token });
    const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { workspace_id: workspace.body.id } });
    expect(res.status).toBe(404);
  });

  it('requires authentication', async () => {
    const res = await rest(api, 'POST', '/user/api-keys', { body: { name: 'x' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
  });
});

describe('GET /user/api-keys', () => {
  it('lists the caller\'s active keys masked, newest first, as a bare array without the key', async () => {
    const owner = await createUser();
    const first = await createApiKey(api, owner, { name: 'first' });
    const second = await createApiKey(api, owner, { name: 'second' });
    const res = await rest(api, 'GET', '/user/api-keys', { token: owner.token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((item: { id: string }) => item.id)).toEqual([second.id, first.id]);
    expect(res.body[0]).toEqual({
      id: second.id,
      masked_key: second.masked_key,
      name: 'second',
      active: true,
      allowed_scopes: null,
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect(res.text).not.toContain(first.key);
    expect(res.text).not.toContain(second.key);
  });

  it("never lists another user's keys", async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    await createApiKey(api, a);
    const res = await rest(api, 'GET', '/user/api-keys', { token: b.token });
    expect(res.body).toEqual([]);
  });

  it('lists revoked keys as inactive only when include_revoked is set', async () => {
    const owner = await createUser();
    const key = await createApiKey(api, owner);
    await rest(api, 'DELETE', `/user/api-keys/${key.id}`, { token: owner.token });
    expect((await rest(api, 'GET', '/user/api-keys', { token: owner.token })).body).toEqual([]);
    const all = await rest(api, 'GET', '/user/api-keys', { token: owner.token, query: { include_revoked: 'true' } });
    expect(all.body).toEqual([expect.objectContaining({ id: key.id, active: false })]);
  });
});

describe('API key authentication', () => {
  it('accepts a key in X-API-Key and in Authorization: Bearer', async () => {
    const key = await createApiKey(api, user);
    const viaHeader = await rest(api, 'GET', '/user', withKey(key.key));
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.id).toBe(user.id);
    const viaBearer = await rest(api, 'GET', '/user', { token: key.key });
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.id).toBe(user.id);
  });

  it('refuses a request with two Authorization headers (Node would keep the first, a proxy may act on the last) or two X-API-Key: 401', async () => {
    const key = await createApiKey(api, user);
    const send = (lines: string[]) => sendRaw(api, `GET /api/v1/user HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`);
    expect(await send([`Authorization: Bearer ${key.key}`])).toMatch(/^HTTP\/1\.1 200 /);
    const twice = await send([`Authorization: Bearer ${key.key}`, `Authorization: Bearer ${user.token}`]);
    expect(twice).toMatch(/^HTTP\/1\.1 401 /);
    expect(twice).toContain('"type":"token_error"');
    const twoKeys = await send([`X-API-Key: ${key.key}`, `X-API-Key: ${key.key}`]);
    expect(twoKeys).toMatch(/^HTTP\/1\.1 401 /);
    expect(twoKeys).toContain('"type":"token_error"');
  });

  it('records last_used_at when the key is used', async () => {
    const key = await createApiKey(api, user);
    await rest(api, 'GET', '/user', withKey(key.key));
    const list = await rest(api, 'GET', '/user/api-keys', { token: user.token });
    const listed = list.body.find((item: { id: string }) => item.id === key.id);
    expect(listed.last_used_at).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(listed.last_used_at))).toBe(false);
  });

  it('rejects an unknown key with 401 token_error', async () => {
    const res = await rest(api, 'GET', '/user', withKey(`apk_${'x'.repeat(40)}`));
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });

  it('rejects a revoked key with 401 token_error immediately', async () => {
    const key = await createApiKey(api, user);
    expect((await rest(api, 'GET', '/user', withKey(key.key))).status).toBe(200);
    const revoked = await rest(api, 'DELETE', `/user/api-keys/${key.id}`, { token: user.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: key.id, revoked: true });
    const res = await rest(api, 'GET', '/user', withKey(key.key));
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
    const bearer = await rest(api, 'GET', '/user', { token: key.key });
    expect(bearer.status).toBe(401);
    expect(bearer.body.type).toBe('token_error');
  });

  it('works for GraphQL requests too', async () => {
    const key = await createApiKey(api, user);
    const res = await gql(api, '{ user { id username } }', {}, key.key);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.user.id).toBe(user.id);
  });
});

describe('DELETE /user/api-keys/{id}', () => {
  it("answers another user's key with 404 and leaves it working", async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const key = await createApiKey(api, a);
    const res = await rest(api, 'DELETE', `/user/api-keys/${key.id}`, { token: b.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
    expect((await rest(api, 'GET', '/user', withKey(key.key))).status).toBe(200);
  });

  it('rejects a malformed id with 422 uuid_parsing at path.id', async () => {
    const res = await rest(api, 'DELETE', '/user/api-keys/not-a-uuid', { token: user.token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['path', 'id'], type: 'uuid_parsing' })]);
  });

  it('answers a second revocation with 200 again', async () => {
    const key = await createApiKey(api, user);
    await rest(api, 'DELETE', `/user/api-keys/${key.id}`, { token: user.token });
    const again = await rest(api, 'DELETE', `/user/api-keys/${key.id}`, { token: user.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: key.id, revoked: true });
  });
});

describe('DELETE /user/api-keys/self', () => {
  it('revokes the calling key when it allows self-revocation', async () => {
    const key = await createApiKey(api, user, { allow_self_revoke: true });
    const res = await rest(api, 'DELETE', '/user/api-keys/self', withKey(key.key));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: key.id, revoked: true });
    const after = await rest(api, 'GET', '/user', withKey(key.key));
    expect(after.status).toBe(401);
    expect(after.body.type).toBe('token_error');
  });

  it('refuses with 403 when the key does not allow self-revocation', async () => {
    const key = await createApiKey(api, user, { allow_self_revoke: false });
    const res = await rest(api, 'DELETE', '/user/api-keys/self', { token: key.key });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
    expect((await rest(api, 'GET', '/user', withKey(key.key))).status).toBe(200);
  });

  it('answers a caller using an access token with 400 invalid_error', async () => {
    const res = await rest(api, 'DELETE', '/user/api-keys/self', { token: user.token });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_error');
  });
});

describe('restricted API keys', () => {
  it('limits an organization key to that organization (404 elsewhere)', async () => {
    const team = await createOrgWithRoles();
    await addMember(team.orgKey, user, 'contributor');
    const key = await createApiKey(api, user, { org_id: await orgId(team.orgKey) });
    expect((await rest(api, 'GET', `/org/${team.orgKey}`, withKey(key.key))).status).toBe(200);
    expect((await rest(api, 'GET', `/org/${team.orgKey}/ws`, withKey(key.key))).status).toBe(200);
    const own = await rest(api, 'GET', `/org/${user.orgKey}`, withKey(key.key));
    expect(own.status).toBe(404);
    const ownWorkspaces = await rest(api, 'GET', `/org/${user.orgKey}/ws`, withKey(key.key));
    expect(ownWorkspaces.status).toBe(404);
    const ownWorkspace = await rest(api, 'GET', `/org/${user.orgKey}/ws/default`, withKey(key.key));
    expect(ownWorkspace.status).toBe(404);
    const orgs = await rest(api, 'GET', '/user/organizations', withKey(key.key));
    expect(orgs.body.map((org: { key: string }) => org.key)).toEqual([team.orgKey]);
  });

  it('limits a workspace key to that workspace and its organization (404 elsewhere)', async () => {
    const owner = await createUser();
    const second = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: 'second', name: 'Second' } });
    expect(second.status).toBe(201);
    const key = await createApiKey(api, owner, { workspace_id: second.body.id });
    const row = await ApiKeyModel.findByPk(key.id);
    expect(row!.organization_id).toBe(second.body.org_id);
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/ws/second`, withKey(key.key))).status).toBe(200);
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/ws/default`, withKey(key.key))).status).toBe(404);
    const list = await rest(api, 'GET', `/org/${owner.orgKey}/ws`, withKey(key.key));
    expect(list.body.workspaces.map((item: { key: string }) => item.key)).toEqual(['second']);
    const other = await createUser();
    await addMember(other.orgKey, owner, 'owner');
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws`, withKey(key.key))).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws/default`, withKey(key.key))).status).toBe(404);
  });

  it('rejects a workspace that is not in the given organization with 404', async () => {
    const owner = await createUser();
    const other = await createUser();
    await addMember(other.orgKey, owner, 'contributor');
    const workspace = await WorkspaceModel.findOne({ where: { key: 'default', organization_id: (await rest(api, 'GET', `/org/${other.orgKey}`, { token: owner.token })).body.id } });
    const ownOrg = await rest(api, 'GET', `/org/${owner.orgKey}`, { token: owner.token });
    const res = await rest(api, 'POST', '/user/api-keys', { token: owner.token, body: { org_id: ownOrg.body.id, workspace_id: workspace!.id } });
    expect(res.status).toBe(404);
  });

  it('limits a key to its allowed scopes (403 on a write outside them)', async () => {
    const owner = await createUser();
    const key = await createApiKey(api, owner, { allowed_scopes: ['org:read'] });
    expect(key).toMatchObject({ allowed_scopes: ['org:read'] });
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/ws`, withKey(key.key))).status).toBe(200);
    const res = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { ...withKey(key.key), body: { key: 'nope', name: 'Nope' } });
    expect(res.status).toBe(403);
    const org = await rest(api, 'GET', `/org/${owner.orgKey}`, withKey(key.key));
    expect(org.body.can_manage_members).toBe(false);
  });

  it("refuses a read-only key's update of a workspace its user created with 403", async () => {
    const team = await createOrgWithRoles();
    const created = await rest(api, 'POST', `/org/${team.orgKey}/ws`, { token: team.contributor.token, body: { key: 'made-by-me', name: 'Mine' } });
    expect(created.status).toBe(201);
    const readOnly = await createApiKey(api, team.contributor, { allowed_scopes: [] });
    const res = await rest(api, 'PUT', `/org/${team.orgKey}/ws/made-by-me`, { ...withKey(readOnly.key), body: { name: 'Renamed' } });
    expect(res.status).toBe(403);
    const full = await createApiKey(api, team.contributor);
    expect((await rest(api, 'PUT', `/org/${team.orgKey}/ws/made-by-me`, { ...withKey(full.key), body: { name: 'Renamed' } })).status).toBe(200);
  });

  it('refuses to let a limited key remove its own user from the organization (403)', async () => {
    const team = await createOrgWithRoles();
    const readOnly = await createApiKey(api, team.contributor, { allowed_scopes: [] });
    const res = await rest(api, 'DELETE', `/org/${team.orgKey}/members/${team.contributor.id}`, withKey(readOnly.key));
    expect(res.status).toBe(403);
    const members = await rest(api, 'GET', `/org/${team.orgKey}/members`, { token: team.owner.token });
    expect(members.body.map((member: { user_id: string }) => member.user_id)).toContain(team.contributor.id);
  });

  it('does not let a restricted key mint or revoke other keys (403)', async () => {
    const owner = await createUser();
    const restricted = await createApiKey(api, owner, { allowed_scopes: ['org:read'] });
    const other = await createApiKey(api, owner);
    const created = await rest(api, 'POST', '/user/api-keys', { ...withKey(restricted.key), body: { name: 'wider' } });
    expect(created.status).toBe(403);
    const revoked = await rest(api, 'DELETE', `/user/api-keys/${other.id}`, withKey(restricted.key));
    expect(revoked.status).toBe(403);
  });
});

describe('API keys over GraphQL', () => {
  it('creates, lists and revokes a key', async () => {
    const owner = await createUser();
    const created = await runOperation(api, 'CreateApiKey', { input: { name: 'gql', allowed_scopes: ['org:read', 'resources:write'] } }, owner.token);
    expect(created.body.errors).toBeUndefined();
    const key = created.body.data.create_api_key;
    expect(key).toMatchObject({ name: 'gql', active: true, allowed_scopes: ['org:read', 'resources:write'] });
    const listed = await runOperation(api, 'ApiKeys', {}, owner.token);
    expect(listed.body.data.api_keys).toEqual([expect.objectContaining({ id: key.id, masked_key: key.masked_key, name: 'gql', active: true })]);
    const revoked = await runOperation(api, 'RevokeApiKey', { id: key.id }, owner.token);
    expect(revoked.body.data.revoke_api_key).toEqual({ id: key.id, revoked: true });
    const withRevoked = await runOperation(api, 'ApiKeys', { include_revoked: true }, owner.token);
    expect(withRevoked.body.data.api_keys).toEqual([expect.objectContaining({ id: key.id, active: false })]);
    const self = await runOperation(api, 'RevokeCurrentApiKey', {}, owner.token);
    expect(self.body.errors?.[0].extensions).toMatchObject({ type: 'invalid_error', status: 400 });
  });
});

import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();

let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let outsider: TestUser;
let orgKey: string;
let ORG: string;

beforeAll(async () => {
  ({ owner, contributor, reader, outsider, orgKey } = await createOrgWithRoles());
  ORG = `/org/${orgKey}`;
});

let counter = 0;
function uniqueKey(prefix = 'ws'): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

async function createWorkspace(user: TestUser, body: Record<string, unknown> = {}): Promise<any> {
  const res = await rest(api, 'POST', `${ORG}/ws`, { token: user.token, body: { key: uniqueKey(), name: 'Workspace', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST ORG/ws (create workspace)', () => {
  it('creates a workspace with 201, its default project and every WorkspaceResponse field', async () => {
    const key = uniqueKey('team');
    const res = await rest(api, 'POST', `${ORG}/ws`, { token: owner.token, body: { key, name: 'Team space', description: 'For the team' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      org_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key,
      name: 'Team space',
      description: 'For the team',
      is_active: true,
      is_default: false,
      created_by: owner.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      org_name: expect.any(String),
      project_count: 1,
    });
    const projects = await rest(api, 'GET', `${ORG}/ws/${key}/projects`, { token: owner.token });
    expect(projects.body).toEqual([expect.objectContaining({ key: 'default', is_default: true })]);
  });

  it('accepts the bounds: 3- and 100-character keys and names, a 1000-character description', async () => {
    await createWorkspace(owner, { key: 'k'.repeat(100), name: 'n'.repeat(100), description: 'd'.repeat(1000) });
    const short = await rest(api, 'POST', `${ORG}/ws`, { token: owner.token, body: { key: 'abc', name: 'abc' } });
    expect(short.status).toBe(201);
  });

  it.each([
    ['a 2-character key', { key: 'ab', name: 'Name' }, ['body', 'key'], 'string_too_short'],
    ['a 101-character key', { key: 'k'.repeat(101), name: 'Name' }, ['body', 'key'], 'string_too_long'],
    ['a key that is not a slug', { key: 'Not A Slug', name: 'Name' }, ['body', 'key'], 'string_pattern_mismatch'],
    ['a key with a trailing hyphen', { key: 'trailing-', name: 'Name' }, ['body', 'key'], 'string_pattern_mismatch'],
    ['a 2-character name', { key: 'fine-key', name: 'ab' }, ['body', 'name'], 'string_too_short'],
    ['a 101-character name', { key: 'fine-key', name: 'n'.repeat(101) }, ['body', 'name'], 'string_too_long'],
    ['a 1001-character description', { key: 'fine-key', name: 'Name', description: 'd'.repeat(1001) }, ['body', 'description'], 'string_too_long'],
    ['a missing name', { key: 'fine-key' }, ['body', 'name'], 'missing'],
    ['a numeric key', { key: 123, name: 'Name' }, ['body', 'key'], 'string_type'],
  ])('rejects %s with 422 at the exact location', async (_label, body, loc, type) => {
    const res = await rest(api, 'POST', `${ORG}/ws`, { token: owner.token, body });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(res.body.errors).toEqual([expect.objectContaining({ loc, type })]);
  });

  it('refuses a name of spaces or invisible characters with 422 at body.name, on workspaces and projects alike', async () => {
    const expected = [{ loc: ['body', 'name'], msg: 'must contain a visible character, not only spaces or invisible characters', type: 'value_error' }];
    const existing = await createWorkspace(owner);
    for (const name of ['   ', '\u200b\u200b\u200b', '\u00a0\u2003\u200e\ufeff', '\u0001\u0001\u0001', '\u3164\u3164\u3164', '\u0301\u0301\u0301']) {
      const created = await rest(api, 'POST', `${ORG}/ws`, { token: owner.token, body: { key: uniqueKey(), name } });
      const updated = await rest(api, 'PUT', `${ORG}/ws/${existing.key}`, { token: owner.token, body: { name } });
      const project = await rest(api, 'POST', `${ORG}/ws/${existing.key}/projects`, { token: owner.token, body: { key: uniqueKey('p'), name } });
      for (const res of [created, updated, project]) expect([res.status, res.body.errors]).toEqual([422, expected]);
    }
    // Spaces around visible text are a name.
    expect((await rest(api, 'POST', `${ORG}/ws`, { token: owner.token, body: { key: uniqueKey(), name: ' a b ' } })).status).toBe(201);
  });

  it('answers 409 already_exists_error for a key taken in the organization', async () => {
    const existing = await createWorkspace(owner);
    const res = await rest(api, 'POST', `${ORG}/ws`, { token: contributor.token, body: { key: existing.key, name: 'Again' } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('allows a key that another organization uses', async () => {
    const res = await rest(api, 'POST', `/org/${outsider.orgKey}/ws`, { token: outsider.token, body: { key: 'default-copy', name: 'Copy' } });
    expect(res.status).toBe(201);
    const again = await rest(api, 'POST', `${ORG}/ws`, { token: owner.token, body: { key: 'default-copy', name: 'Copy' } });
    expect(again.status).toBe(201);
  });

  it('lets a contributor create a workspace', async () => {
    const created = await createWorkspace(contributor);
    expect(created.created_by).toBe(contributor.id);
  });

  it("rejects a reader's workspace creation with 403", async () => {
    const res = await rest(api, 'POST', `${ORG}/ws`, { token: reader.token, body: { key: uniqueKey(), name: 'Reader' } });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it("hides another organization from a non-member's creation with 404", async () => {
    const res = await rest(api, 'POST', `${ORG}/ws`, { token: outsider.token, body: { key: uniqueKey(), name: 'Sneaky' } });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('answers 401 without a token', async () => {
    const res = await rest(api, 'POST', `${ORG}/ws`, { body: { key: uniqueKey(), name: 'Anonymous' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
  });

  it('answers 401 token_error for a malformed token', async () => {
    const res = await rest(api, 'POST', `${ORG}/ws`, { token: 'a.b.c', body: { key: uniqueKey(), name: 'Bad token' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });
});

describe('GET ORG/ws and GET WS', () => {
  it('lists the workspaces of the organization under `workspaces`, default first', async () => {
    const created = await createWorkspace(owner);
    const res = await rest(api, 'GET', `${ORG}/ws`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['workspaces']);
    expect(res.body.workspaces[0]).toMatchObject({ key: 'default', is_default: true, project_count: 1 });
    expect(res.body.workspaces.map((ws: { key: string }) => ws.key)).toContain(created.key);
  });

  it('gets one workspace without GraphQL-only relations', async () => {
    const res = await rest(api, 'GET', `${ORG}/ws/default`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: 'default', is_default: true, is_active: true, project_count: 1 });
    expect(res.body).not.toHaveProperty('projects');
  });

  it("hides another organization's workspaces with 404", async () => {
    expect((await rest(api, 'GET', `${ORG}/ws`, { token: outsider.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${ORG}/ws/default`, { token: outsider.token })).status).toBe(404);
  });

  it('answers 404 for an unknown workspace', async () => {
    expect((await rest(api, 'GET', `${ORG}/ws/nothing-here`, { token: owner.token })).status).toBe(404);
  });

  it('answers 401 without a token', async () => {
    expect((await rest(api, 'GET', `${ORG}/ws`)).status).toBe(401);
    expect((await rest(api, 'GET', `${ORG}/ws/default`)).status).toBe(401);
  });
});

describe('PUT WS (update workspace)', () => {
  it('lets the owner update every field', async () => {
    const created = await createWorkspace(contributor, { description: 'Before' });
    const key = uniqueKey('renamed');
    const res = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, {
      token: owner.token,
      body: { key, name: 'Renamed', description: 'After', is_active: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, key, name: 'Renamed', description: 'After', is_active: false });
    expect((await rest(api, 'GET', `${ORG}/ws/${key}`, { token: owner.token })).body.id).toBe(created.id);
    expect((await rest(api, 'GET', `${ORG}/ws/${created.key}`, { token: owner.token })).status).toBe(404);
  });

  it('lets the creator update their workspace', async () => {
    const created = await createWorkspace(contributor);
    const res = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, { token: contributor.token, body: { name: 'Mine' } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Mine');
  });

  it("rejects a contributor's update of a workspace they did not create with 403", async () => {
    const created = await createWorkspace(owner);
    const res = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, { token: contributor.token, body: { name: 'Not mine' } });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it("rejects a reader's update with 403", async () => {
    const res = await rest(api, 'PUT', `${ORG}/ws/default`, { token: reader.token, body: { name: 'Reader' } });
    expect(res.status).toBe(403);
  });

  it("hides another organization's workspace from an update with 404", async () => {
    const res = await rest(api, 'PUT', `${ORG}/ws/default`, { token: outsider.token, body: { name: 'Outsider' } });
    expect(res.status).toBe(404);
  });

  it('leaves absent fields unchanged', async () => {
    const created = await createWorkspace(owner, { name: 'Keep me', description: 'Keep this' });
    const res = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, { token: owner.token, body: { is_active: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: created.key, name: 'Keep me', description: 'Keep this', is_active: false });
    const empty = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, { token: owner.token, body: {} });
    expect(empty.body).toMatchObject({ key: created.key, name: 'Keep me', description: 'Keep this', is_active: false });
  });

  it('clears the description with null and leaves the other fields on null', async () => {
    const created = await createWorkspace(owner, { name: 'Null test', description: 'Goes away' });
    const res = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, {
      token: owner.token,
      body: { description: null, name: null, key: null, is_active: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: created.key, name: 'Null test', description: null, is_active: true });
  });

  it('answers 409 already_exists_error when renaming to a key that is taken', async () => {
    const first = await createWorkspace(owner);
    const second = await createWorkspace(owner);
    const res = await rest(api, 'PUT', `${ORG}/ws/${second.key}`, { token: owner.token, body: { key: first.key } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it("refuses a key limited to the workspace a change of the workspace's key (403), so no 409 tells it another workspace's key", async () => {
    const taken = await createWorkspace(owner);
    const mine = await createWorkspace(owner);
    const key = (await createApiKey(api, owner, { workspace_id: mine.id })).key;
    for (const target of [taken.key, uniqueKey()]) {
      const res = await rest(api, 'PUT', `${ORG}/ws/${mine.key}`, { token: key, body: { key: target } });
      expect([res.status, res.body.type]).toEqual([403, 'forbidden_error']);
    }
    // Its other fields, and its own key unchanged, it may still write.
    expect((await rest(api, 'PUT', `${ORG}/ws/${mine.key}`, { token: key, body: { key: mine.key, name: 'Renamed by key' } })).body).toMatchObject({ key: mine.key, name: 'Renamed by key' });
  });

  it('accepts a rename to its own key', async () => {
    const created = await createWorkspace(owner);
    const res = await rest(api, 'PUT', `${ORG}/ws/${created.key}`, { token: owner.token, body: { key: created.key } });
    expect(res.status).toBe(200);
  });

  it('refuses to deactivate the default workspace with 400 invalid_error', async () => {
    const res = await rest(api, 'PUT', `${ORG}/ws/default`, { token: owner.token, body: { is_active: false } });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_error');
  });

  it.each([
    ['a 2-character key', { key: 'ab' }, ['body', 'key'], 'string_too_short'],
    ['a 101-character key', { key: 'k'.repeat(101) }, ['body', 'key'], 'string_too_long'],
    ['a key that is not a slug', { key: 'UPPER' }, ['body', 'key'], 'string_pattern_mismatch'],
    ['a 2-character name', { name: 'ab' }, ['body', 'name'], 'string_too_short'],
    ['a 101-character name', { name: 'n'.repeat(101) }, ['body', 'name'], 'string_too_long'],
    ['a 1001-character description', { description: 'd'.repeat(1001) }, ['body', 'description'], 'string_too_long'],
    ['a non-boolean is_active', { is_active: 'yes' }, ['body', 'is_active'], 'bool_parsing'],
  ])('rejects an update with %s with 422 at the exact location', async (_label, body, loc, type) => {
    const res = await rest(api, 'PUT', `${ORG}/ws/default`, { token: owner.token, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc, type })]);
  });

  it('answers 401 without a token', async () => {
    expect((await rest(api, 'PUT', `${ORG}/ws/default`, { body: { name: 'Anon' } })).status).toBe(401);
  });
});

describe('workspaces through GraphQL', () => {
  it('creates, lists, gets and updates a workspace', async () => {
    const key = uniqueKey('gql');
    const created = await runOperation(api, 'CreateWorkspace', { org: orgKey, input: { key, name: 'From GraphQL', description: 'x' } }, contributor.token);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.create_workspace).toMatchObject({ key, name: 'From GraphQL', is_default: false, project_count: 1, created_by: contributor.id });

    const listed = await runOperation(api, 'Workspaces', { org: orgKey }, reader.token);
    expect(listed.body.data.workspaces.workspaces.map((ws: { key: string }) => ws.key)).toContain(key);

    const got = await runOperation(api, 'Workspace', { org: orgKey, workspace: key }, reader.token);
    expect(got.body.data.workspace).toMatchObject({ key, description: 'x', projects: [expect.objectContaining({ key: 'default', is_default: true })] });

    const updated = await runOperation(api, 'UpdateWorkspace', { org: orgKey, workspace: key, input: { description: null, name: 'Updated' } }, contributor.token);
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.update_workspace).toMatchObject({ key, name: 'Updated', description: null, is_active: true });
  });

  it('reports validation failures with input locations', async () => {
    const res = await runOperation(api, 'CreateWorkspace', { org: orgKey, input: { key: 'ab', name: 'ab' } }, owner.token);
    expect(res.body.errors?.[0].extensions.type).toBe('validation_error');
    const items = res.body.errors![0].extensions.errors.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        [['input', 'key'], 'string_too_short'],
        [['input', 'name'], 'string_too_short'],
      ]),
    );
  });

  it('maps tenancy, role and conflict errors into extensions', async () => {
    const hidden = await runOperation(api, 'CreateWorkspace', { org: orgKey, input: { key: uniqueKey(), name: 'Hidden' } }, outsider.token);
    expect(hidden.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error', status: 404 });
    const forbidden = await runOperation(api, 'CreateWorkspace', { org: orgKey, input: { key: uniqueKey(), name: 'Reader' } }, reader.token);
    expect(forbidden.body.errors?.[0].extensions).toMatchObject({ type: 'forbidden_error', status: 403 });
    const conflict = await runOperation(api, 'CreateWorkspace', { org: orgKey, input: { key: 'default', name: 'Default again' } }, owner.token);
    expect(conflict.body.errors?.[0].extensions).toMatchObject({ type: 'already_exists_error', status: 409 });
    const invalid = await runOperation(api, 'UpdateWorkspace', { org: orgKey, workspace: 'default', input: { is_active: false } }, owner.token);
    expect(invalid.body.errors?.[0].extensions).toMatchObject({ type: 'invalid_error', status: 400 });
  });

  it('answers an unauthenticated operation with authentication_error', async () => {
    const res = await runOperation(api, 'CreateWorkspace', { org: orgKey, input: { key: uniqueKey(), name: 'Anon' } });
    expect(res.body.errors?.[0].extensions).toMatchObject({ type: 'authentication_error', status: 401 });
  });

  it("lets a fresh user's personal organization hold a default workspace", async () => {
    const fresh = await createUser();
    const res = await gql(api, 'query($org: String!) { workspaces(org: $org) { workspaces { key is_default project_count } } }', { org: fresh.orgKey }, fresh.token);
    expect(res.body.data.workspaces.workspaces).toEqual([{ key: 'default', is_default: true, project_count: 1 }]);
  });
});

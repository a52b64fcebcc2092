import crypto from 'node:crypto';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createGroup, createProject, createWorkspace, defaultProject, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let path: string;

const SESSION_FIELDS = [
  'id', 'agent', 'model', 'title', 'origin', 'visibility', 'workspace_id', 'user_id', 'project_id', 'project_key', 'project_name',
  'runtime_id', 'group_id', 'group', 'labels', 'message_count', 'recent_message_count', 'preview_text', 'last_message_at',
  'created_at', 'updated_at', 'archived_at', 'frozen_at', 'frozen_by', 'created_by', 'shared_at', 'shared_by', 'usage', 'events',
];

beforeAll(async () => {
  roles = await createOrgWithRoles();
  path = sessionsPath(roles.orgKey);
});

function post(user: TestUser, body: Record<string, unknown>) {
  return rest(api, 'POST', path, { token: user.token, body });
}

describe('save session (POST WS/sessions)', () => {
  it('creates a session with 201, the caller as owner and every required field present', async () => {
    const id = crypto.randomUUID();
    const res = await post(roles.contributor, { id, model: 'model-x', agent: 'agent-x', title: 'First', labels: { env: ['prod', 'prod', 'dev'] } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...SESSION_FIELDS].sort());
    expect(res.body).toMatchObject({
      id,
      model: 'model-x',
      agent: 'agent-x',
      title: 'First',
      origin: 'user',
      visibility: 'private',
      user_id: roles.contributor.id,
      project_id: null,
      project_key: null,
      project_name: null,
      group: null,
      labels: { env: ['prod', 'dev'] },
      message_count: 0,
      last_message_at: null,
      archived_at: null,
      frozen_at: null,
      frozen_by: null,
      shared_at: null,
      shared_by: null,
      created_by: { id: roles.contributor.id, username: roles.contributor.username, email: roles.contributor.email, full_name: null },
    });
    expect(res.body.usage).toMatchObject({ total_message_count: 0, current_message_count: 0, total_cost_usd: null, last_generation_input_tokens: null });
  });

  it('updates the metadata with 200 when the owner saves the same id again', async () => {
    const id = crypto.randomUUID();
    await post(roles.contributor, { id, model: 'model-x', title: 'Before', message_count: 3 });
    const res = await post(roles.contributor, { id, model: 'model-y', title: 'After', labels: { team: ['a'] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, model: 'model-y', title: 'After', message_count: 3, labels: { team: ['a'] } });
    const list = await rest(api, 'GET', path, { token: roles.contributor.token, query: { search: 'After' } });
    expect(list.body.sessions.filter((row: { id: string }) => row.id === id)).toHaveLength(1);
  });

  it('accepts an upper-case id and stores it in lower-case form', async () => {
    const id = crypto.randomUUID();
    const res = await post(roles.contributor, { id: id.toUpperCase(), model: 'm' });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
  });

  it('takes project_key and project_name from the project of the workspace', async () => {
    const project = await createProject(roles.orgKey);
    const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', project_id: project.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ project_id: project.id, project_key: project.key, project_name: project.name });
  });

  it('answers 404 for a project of another workspace or tenant', async () => {
    const otherWorkspace = await createWorkspace(roles.orgKey);
    const foreign = await createProject(roles.orgKey, otherWorkspace.key);
    const stranger = await createUser();
    const strangerProject = await defaultProject(stranger.orgKey);
    for (const projectId of [foreign.id, strangerProject.id, crypto.randomUUID()]) {
      const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', project_id: projectId });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('not_found_error');
    }
  });

  it('embeds the group and answers 404 for a group of another workspace', async () => {
    const group = await createGroup(api, roles.owner, { kind: 'worker_run', title: 'Run 1', status: 'running' });
    const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', group_id: group.id });
    expect(res.status).toBe(201);
    expect(res.body.group_id).toBe(group.id);
    expect(res.body.group).toMatchObject({ id: group.id, kind: 'worker_run', status: 'running', title: 'Run 1', session_count: 1, active_session_count: 1 });

    const stranger = await createUser();
    const foreignGroup = await createGroup(api, stranger);
    const missing = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', group_id: foreignGroup.id });
    expect(missing.status).toBe(404);
  });

  it('records shared_at and shared_by when a session is saved with workspace visibility', async () => {
    const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', visibility: 'workspace' });
    expect(res.status).toBe(201);
    expect(res.body.visibility).toBe('workspace');
    expect(Date.parse(res.body.shared_at)).not.toBeNaN();
    expect(res.body.shared_by).toEqual({ id: roles.contributor.id, username: roles.contributor.username, email: roles.contributor.email, full_name: null });
  });

  it('lets any writer save sessions with origin eval or worker', async () => {
    for (const origin of ['eval', 'worker']) {
      const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', origin });
      expect(res.status).toBe(201);
      expect(res.body.origin).toBe(origin);
    }
  });

  it("rejects a reader's save with 403", async () => {
    const res = await post(roles.reader, { id: crypto.randomUUID(), model: 'm' });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it("hides the workspace from a non-member with 404", async () => {
    const res = await post(roles.outsider, { id: crypto.randomUUID(), model: 'm' });
    expect(res.status).toBe(404);
  });

  it('answers 409 conflict_error when the id lives in another workspace, even of another tenant', async () => {
    const id = crypto.randomUUID();
    const stranger = await createUser();
    await saveSession(api, stranger, { id });
    const res = await post(roles.contributor, { id, model: 'm' });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');

    const otherWorkspace = await createWorkspace(roles.orgKey);
    const id2 = crypto.randomUUID();
    await saveSession(api, roles.contributor, { id: id2 }, { orgKey: roles.orgKey, ws: otherWorkspace.key });
    const again = await post(roles.contributor, { id: id2, model: 'm' });
    expect(again.status).toBe(409);
  });

  it("answers 404 for another user's private session and 403 for a shared one", async () => {
    const hidden = await saveSession(api, roles.owner, {}, { orgKey: roles.orgKey });
    const shared = await saveSession(api, roles.owner, { visibility: 'workspace' }, { orgKey: roles.orgKey });
    expect((await post(roles.contributor, { id: hidden.id, model: 'm' })).status).toBe(404);
    const res = await post(roles.contributor, { id: shared.id, model: 'm' });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it('rejects a title over 255 characters, a bad id, an unknown origin and a negative message count with 422', async () => {
    const res = await post(roles.contributor, { id: 'not-a-uuid', model: 'm', title: 't'.repeat(256), origin: 'robot', message_count: -1 });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['body.id', 'uuid_parsing'],
        ['body.title', 'string_too_long'],
        ['body.origin', 'enum'],
        ['body.message_count', 'greater_than_equal'],
      ]),
    );
  });

  it('reports missing id and model as missing', async () => {
    const res = await post(roles.contributor, {});
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'id'], type: 'missing' }),
        expect.objectContaining({ loc: ['body', 'model'], type: 'missing' }),
      ]),
    );
  });

  it('validates labels as key → list of strings with exact locations', async () => {
    const cases: [unknown, (string | number)[], string][] = [
      [['a'], ['body', 'labels'], 'dict_type'],
      [{ env: 'prod' }, ['body', 'labels', 'env'], 'list_type'],
      [{ env: ['prod', 7] }, ['body', 'labels', 'env', 1], 'string_type'],
      [{ '': ['x'] }, ['body', 'labels', ''], 'string_too_short'],
      [Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`k${index}`, ['v']])), ['body', 'labels'], 'too_long'],
    ];
    for (const [labels, loc, type] of cases) {
      const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', labels });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ loc, type })]);
    }
    const ok = await post(roles.contributor, {
      id: crypto.randomUUID(),
      model: 'm',
      labels: Object.fromEntries(Array.from({ length: 64 }, (_, index) => [`k${index}`, ['v']])),
    });
    expect(ok.status).toBe(201);
  });

  it('bounds label keys, values, values per key and the total size with 422 at exact locations', async () => {
    const cases: [unknown, (string | number)[], string][] = [
      [{ ['k'.repeat(65)]: ['v'] }, ['body', 'labels', 'k'.repeat(65)], 'string_too_long'],
      [{ env: ['ok', 'v'.repeat(256)] }, ['body', 'labels', 'env', 1], 'string_too_long'],
      [{ env: Array.from({ length: 65 }, (_, index) => `v${index}`) }, ['body', 'labels', 'env'], 'too_long'],
      // ~2.7 KB of labels used to end in a 500 (btree row size limit of the list index)
      [{ a: Array.from({ length: 12 }, (_, index) => `${index}`.padEnd(230, 'x')) }, ['body', 'labels'], 'too_long'],
    ];
    for (const [labels, loc, type] of cases) {
      const res = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm', labels });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ loc, type })]);
    }
    const mine = await saveSession(api, roles.contributor, {}, { orgKey: roles.orgKey });
    const patch = await rest(api, 'PATCH', `${path}/${mine.id}`, { token: roles.contributor.token, body: { labels: { env: ['v'.repeat(256)] } } });
    expect(patch.status).toBe(422);
    expect(patch.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'labels', 'env', 0], type: 'string_too_long' })]);
    const big = await rest(api, 'PATCH', `${path}/${mine.id}`, {
      token: roles.contributor.token,
      body: { labels: { a: Array.from({ length: 12 }, (_, index) => `${index}`.padEnd(230, 'x')) } },
    });
    expect(big.status).toBe(422);
    expect(big.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'labels'], type: 'too_long' })]);
  });

  it('fits agent, model and labels into the list index: the most that passes saves, more is 422 (not 500)', async () => {
    // Random data does not compress, and 3-byte characters are the longest UTF-8 form of 255 characters.
    const cjk = () => Array.from({ length: 255 }, () => String.fromCodePoint(0x4e00 + crypto.randomInt(0x5000))).join('');
    const randomLabels = (maxJsonBytes: number) => {
      const labels: Record<string, string[]> = { a: [] };
      for (let index = 0; index < 64; index += 1) {
        const value = crypto.randomBytes(200).toString('base64').slice(0, 250);
        if (Buffer.byteLength(JSON.stringify({ a: [...labels.a, value] })) > maxJsonBytes) break;
        labels.a.push(value);
      }
      return labels;
    };
    const nearLimit = randomLabels(2000);
    expect(Buffer.byteLength(JSON.stringify(nearLimit))).toBeGreaterThan(1700);
    const plain = await post(roles.contributor, { id: crypto.randomUUID(), model: 'm'.repeat(100), agent: 'a'.repeat(100), labels: nearLimit });
    expect(plain.status).toBe(201);
    expect(plain.body.labels).toEqual(nearLimit);

    const tooMuch = await post(roles.contributor, { id: crypto.randomUUID(), model: cjk(), agent: cjk(), labels: nearLimit });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'labels'], type: 'too_long' })]);

    const small = randomLabels(800);
    const both = await post(roles.contributor, { id: crypto.randomUUID(), model: cjk(), agent: cjk(), title: cjk(), labels: small });
    expect(both.status).toBe(201);
    const grow = await rest(api, 'PATCH', `${path}/${plain.body.id}`, { token: roles.contributor.token, body: { agent: cjk(), model: cjk() } });
    expect(grow.status).toBe(422);
    expect(grow.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'agent'], type: 'too_long' })]);
  });

  it('keeps a __proto__ label key instead of dropping it', async () => {
    const id = crypto.randomUUID();
    const res = await rest(api, 'POST', path, {
      token: roles.contributor.token,
      rawBody: `{"id":"${id}","model":"m","labels":{"__proto__":["x"],"env":["prod"]}}`,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.labels).sort()).toEqual(['__proto__', 'env']);
    expect(Object.getOwnPropertyDescriptor(res.body.labels, '__proto__')?.value).toEqual(['x']);
    const read = await rest(api, 'GET', `${path}/${id}`, { token: roles.contributor.token });
    expect(Object.getOwnPropertyDescriptor(read.body.labels, '__proto__')?.value).toEqual(['x']);
    const filtered = await rest(api, 'GET', path, { token: roles.contributor.token, query: { label: '__proto__:x' } });
    expect(filtered.body.sessions.map((session: { id: string }) => session.id)).toEqual([id]);
  });

  it('bounds message_count at 1,000,000,000 on save and on PATCH (422 less_than_equal)', async () => {
    const id = crypto.randomUUID();
    const over = await post(roles.contributor, { id, model: 'm', message_count: 1_000_000_001 });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'message_count'], type: 'less_than_equal' })]);
    const max = await post(roles.contributor, { id, model: 'm', message_count: 1_000_000_000 });
    expect(max.status).toBe(201);
    const patch = await rest(api, 'PATCH', `${path}/${id}`, { token: roles.contributor.token, body: { message_count: 2_000_000_000 } });
    expect(patch.status).toBe(422);
    expect(patch.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'message_count'], type: 'less_than_equal' })]);
    // the transcript can still grow from the maximum
    const appended = await rest(api, 'POST', `${path}/${id}/transcript`, { token: roles.contributor.token, body: { messages: [{ role: 'user', content: 'x' }] } });
    expect(appended.status).toBe(201);
    expect(appended.body.session.message_count).toBe(1_000_000_001);
  });

  it('answers exactly one 201 and 200 for the others when the owner saves a new id six times at once', async () => {
    const id = crypto.randomUUID();
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, index) => post(roles.contributor, { id, model: `m-${index}`, labels: { n: [String(index)] } })),
    );
    const statuses = replies.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
    for (const res of replies) expect(res.body).toMatchObject({ id, user_id: roles.contributor.id });
    const read = await rest(api, 'GET', `${path}/${id}`, { token: roles.contributor.token });
    expect(read.status).toBe(200);
  });

  it('answers 403 to a reader saving a new id even when the id is taken meanwhile, and creates nothing', async () => {
    const id = crypto.randomUUID();
    const res = await post(roles.reader, { id, model: 'm' });
    expect(res.status).toBe(403);
    expect((await rest(api, 'GET', `${path}/${id}`, { token: roles.reader.token })).status).toBe(404);
    expect((await post(roles.contributor, { id, model: 'm' })).status).toBe(201);
  });

  it('answers 401 without credentials', async () => {
    const res = await rest(api, 'POST', path, { body: { id: crypto.randomUUID(), model: 'm' } });
    expect(res.status).toBe(401);
  });

  it('saves a session through GraphQL with input locations on errors', async () => {
    const id = crypto.randomUUID();
    const mutation = `mutation($org: String!, $input: SessionCreateRequest!) {
      save_session(org: $org, workspace: "default", input: $input) { id model visibility created_by { username } usage { total_message_count } }
    }`;
    const res = await gql(api, mutation, { org: roles.orgKey, input: { id, model: 'gql-model' } }, roles.contributor.token);
    expect(res.body.data.save_session).toEqual({
      id,
      model: 'gql-model',
      visibility: 'private',
      created_by: { username: roles.contributor.username },
      usage: { total_message_count: 0 },
    });
    const bad = await gql(api, mutation, { org: roles.orgKey, input: { id: crypto.randomUUID(), model: 'm', labels: { env: [1] } } }, roles.contributor.token);
    expect(bad.body.errors?.[0].extensions).toMatchObject({ type: 'validation_error', errors: [expect.objectContaining({ loc: ['input', 'labels', 'env', 0] })] });
  });

  it('refuses a mutation of several fields before any runs when one breaks a rule: nothing is half written', async () => {
    const [first, second] = [crypto.randomUUID(), crypto.randomUUID()];
    const mutation = `mutation($org: String!, $b: SessionCreateRequest!) {
      a: save_session(org: $org, workspace: "default", input: { id: "${first}", model: "m", title: "first" }) { id }
      b: save_session(org: $org, workspace: "default", input: $b) { id }
    }`;
    const res = await gql(api, mutation, { org: roles.orgKey, b: { id: second, model: 'm', title: 't'.repeat(300) } }, roles.contributor.token);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].path).toEqual(['b']);
    expect(res.body.errors![0].extensions).toMatchObject({ type: 'validation_error', status: 422, errors: [expect.objectContaining({ loc: ['input', 'title'] })] });
    // The first field, valid, did not run either.
    expect((await rest(api, 'GET', `${path}/${first}`, { token: roles.contributor.token })).status).toBe(404);
    // Both valid: both run.
    const both = await gql(api, mutation, { org: roles.orgKey, b: { id: second, model: 'm', title: 'second' } }, roles.contributor.token);
    expect(both.body.data).toEqual({ a: { id: first }, b: { id: second } });
  });
});

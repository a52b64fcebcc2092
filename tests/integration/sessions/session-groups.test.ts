import crypto from 'node:crypto';
import { createOrgWithRoles, createUser } from '../../factories/accounts';
import { createEvaluation } from '../../factories/evaluations';
import { appendMessages, createGroup, createWorkspace, defaultProject, createProject, saveSession, sessionsPath } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let path: string;
let projectId: string;

const GROUP_FIELDS = [
  'id', 'kind', 'status', 'title', 'worker', 'capability', 'capability_version', 'evaluation_id', 'evaluation_item_id',
  'evaluation_item_attempt_id', 'runtime_id', 'active_session_count', 'session_count', 'message_count', 'total_tokens',
  'created_at', 'updated_at', 'started_at', 'completed_at', 'last_activity_at',
];

beforeAll(async () => {
  roles = await createOrgWithRoles();
  path = `${sessionsPath(roles.orgKey)}/groups`;
  projectId = (await defaultProject(roles.orgKey)).id;
});

describe('create session group (POST WS/sessions/groups)', () => {
  it('creates a group with 201, every field present, started_at set by running', async () => {
    // evaluation_id must name an evaluation of the workspace (tests/integration/evaluations/links.test.ts).
    const evaluationId = (await createEvaluation(api, roles.owner, { dataset: [{}] }, roles.orgKey)).id;
    const res = await rest(api, 'POST', path, {
      token: roles.contributor.token,
      body: { kind: 'evaluation_item', project_id: projectId, status: 'running', title: 'Item 1', worker: 'w', capability: 'cap', capability_version: '1.0.0', evaluation_id: evaluationId, metadata: { a: 1 } },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...GROUP_FIELDS].sort());
    expect(res.body).toMatchObject({
      kind: 'evaluation_item',
      status: 'running',
      title: 'Item 1',
      evaluation_id: evaluationId,
      evaluation_item_id: null,
      session_count: 0,
      active_session_count: 0,
      message_count: 0,
      total_tokens: 0,
      completed_at: null,
      last_activity_at: null,
    });
    expect(res.body.started_at).not.toBeNull();
  });

  it('sets completed_at for a terminal status and leaves both null without status', async () => {
    const done = await createGroup(api, roles.contributor, { status: 'failed' }, { orgKey: roles.orgKey });
    expect(done.completed_at).not.toBeNull();
    const plain = await createGroup(api, roles.contributor, {}, { orgKey: roles.orgKey });
    expect(plain).toMatchObject({ status: null, started_at: null, completed_at: null });
  });

  it('rejects bad input with 422 and exact locations', async () => {
    const res = await rest(api, 'POST', path, {
      token: roles.contributor.token,
      body: { kind: 'party', title: 't'.repeat(256), evaluation_id: 'nope', status: 'paused' },
    });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['body.kind', 'enum'],
        ['body.project_id', 'missing'],
        ['body.title', 'string_too_long'],
        ['body.evaluation_id', 'uuid_parsing'],
        ['body.status', 'enum'],
      ]),
    );
  });

  it('answers 404 for a project of another workspace or tenant, 403 for a reader', async () => {
    const otherWs = await createWorkspace(roles.orgKey);
    const foreign = await createProject(roles.orgKey, otherWs.key);
    const stranger = await createUser();
    for (const id of [foreign.id, (await defaultProject(stranger.orgKey)).id]) {
      const res = await rest(api, 'POST', path, { token: roles.contributor.token, body: { kind: 'workflow', project_id: id } });
      expect(res.status).toBe(404);
    }
    const reader = await rest(api, 'POST', path, { token: roles.reader.token, body: { kind: 'workflow', project_id: projectId } });
    expect(reader.status).toBe(403);
    const outsider = await rest(api, 'POST', path, { token: roles.outsider.token, body: { kind: 'workflow', project_id: projectId } });
    expect(outsider.status).toBe(404);
  });
});

describe('group counts, list, get and patch', () => {
  it('counts every session of the group, tokens and last activity, whoever owns the sessions (decisions §6)', async () => {
    const group = await createGroup(api, roles.contributor, { kind: 'worker_run' }, { orgKey: roles.orgKey });
    const a = await saveSession(api, roles.contributor, { group_id: group.id, origin: 'worker', visibility: 'workspace' }, { orgKey: roles.orgKey });
    const b = await saveSession(api, roles.owner, { group_id: group.id, origin: 'worker' }, { orgKey: roles.orgKey }); // private to the owner
    await appendMessages(api, roles.contributor, a.id, [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y', usage: { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 1000 } },
    ], { orgKey: roles.orgKey });
    await appendMessages(api, roles.owner, b.id, [{ role: 'assistant', content: 'z', usage: { input_tokens: 7, output_tokens: 3 } }], { orgKey: roles.orgKey });
    await rest(api, 'POST', `${sessionsPath(roles.orgKey)}/${b.id}/archive`, { token: roles.owner.token });

    // The owner sees both sessions.
    const owner = await rest(api, 'GET', `${path}/${group.id}`, { token: roles.owner.token });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ session_count: 2, active_session_count: 1, message_count: 3, total_tokens: 160 });
    expect(Date.parse(owner.body.last_activity_at)).not.toBeNaN();

    // A reader, who cannot see the owner's private session, gets the same aggregate numbers.
    const reader = await rest(api, 'GET', `${path}/${group.id}`, { token: roles.reader.token });
    expect(reader.status).toBe(200);
    expect(reader.body).toMatchObject({ session_count: 2, active_session_count: 1, message_count: 3, total_tokens: 160 });

    const session = await rest(api, 'GET', `${sessionsPath(roles.orgKey)}/${a.id}`, { token: roles.contributor.token });
    expect(session.body.group).toMatchObject({ id: group.id, session_count: 2, total_tokens: 160 });
    const list = await rest(api, 'GET', path, { token: roles.reader.token, query: { limit: 100 } });
    expect(list.body.groups.find((row: { id: string }) => row.id === group.id)).toMatchObject({ session_count: 2, message_count: 3 });
  });

  it('counts a session the caller cannot see, without showing it in the group\'s sessions', async () => {
    const group = await createGroup(api, roles.owner, { kind: 'workflow' }, { orgKey: roles.orgKey });
    const hidden = await saveSession(api, roles.owner, { group_id: group.id }, { orgKey: roles.orgKey });
    await appendMessages(api, roles.owner, hidden.id, [{ role: 'assistant', content: 'z', usage: { input_tokens: 7, output_tokens: 3 } }], { orgKey: roles.orgKey });
    const res = await rest(api, 'GET', `${path}/${group.id}`, { token: roles.contributor.token });
    expect(res.body).toMatchObject({ session_count: 1, active_session_count: 1, message_count: 1, total_tokens: 10 });
    expect(Date.parse(res.body.last_activity_at)).not.toBeNaN();
    const nested = await runOperation(api, 'SessionGroup', { org: roles.orgKey, workspace: 'default', group_id: group.id }, roles.contributor.token);
    expect(nested.body.data.session_group.sessions).toEqual([]);
  });

  it('lists groups newest first with paging and filters', async () => {
    const stranger = await createUser();
    const kindA = await createGroup(api, stranger, { kind: 'workflow_run', status: 'running' });
    await createGroup(api, stranger, { kind: 'workflow' });
    const strangerPath = `${sessionsPath(stranger.orgKey)}/groups`;
    const res = await rest(api, 'GET', strangerPath, { token: stranger.token, query: { limit: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, page: 1, limit: 1, total_pages: 2, has_next: true, has_previous: false });
    expect(res.body.groups).toHaveLength(1);
    expect(res.body.groups[0].kind).toBe('workflow');
    const filtered = await rest(api, 'GET', strangerPath, { token: stranger.token, query: { kind: 'workflow_run', status: 'running' } });
    expect(filtered.body.groups.map((group: { id: string }) => group.id)).toEqual([kindA.id]);
    const past = await rest(api, 'GET', strangerPath, { token: stranger.token, query: { page: 9 } });
    expect(past.body).toMatchObject({ groups: [], total: 2, has_next: false, has_previous: true });
    const bad = await rest(api, 'GET', strangerPath, { token: stranger.token, query: { kind: 'x' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'kind', 0], type: 'enum' })]);
    const badLimit = await rest(api, 'GET', strangerPath, { token: stranger.token, query: { limit: 0 } });
    expect(badLimit.status).toBe(422);
    expect(badLimit.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'limit'], type: 'greater_than_equal' })]);
  });

  it('patches title and status: completed sets completed_at', async () => {
    const group = await createGroup(api, roles.contributor, { status: 'running' }, { orgKey: roles.orgKey });
    const res = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { title: 'Renamed', status: 'completed' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Renamed', status: 'completed', started_at: group.started_at });
    expect(res.body.completed_at).not.toBeNull();
    expect((await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.reader.token, body: { title: 'x' } })).status).toBe(403);
    const bogus = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status: 'bogus' } });
    expect(bogus.status).toBe(422);
    expect(bogus.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'status'], type: 'enum' })]);
  });

  it('keeps the first completed_at when a terminal status is repeated or changed to another terminal one', async () => {
    const group = await createGroup(api, roles.contributor, { status: 'running' }, { orgKey: roles.orgKey });
    const done = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status: 'completed' } });
    expect(done.body.completed_at).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 5)); // distinct clock readings
    const again = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status: 'completed' } });
    expect(again.body.completed_at).toBe(done.body.completed_at);
    const failed = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status: 'failed' } });
    expect(failed.body).toMatchObject({ status: 'failed', completed_at: done.body.completed_at });
    const rerun = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status: 'running' } });
    expect(rerun.body).toMatchObject({ completed_at: null, started_at: group.started_at });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cancelled = await rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status: 'cancelled' } });
    expect(Date.parse(cancelled.body.completed_at)).toBeGreaterThan(Date.parse(done.body.completed_at));
  });

  it('applies two status updates racing one after the other: a terminal status always has completed_at, running never', async () => {
    const group = await createGroup(api, roles.contributor, { status: 'running' }, { orgKey: roles.orgKey });
    const patch = (status: string) => rest(api, 'PATCH', `${path}/${group.id}`, { token: roles.contributor.token, body: { status } });
    for (let round = 0; round < 15; round += 1) {
      expect((await patch('completed')).status).toBe(200);
      const replies = await Promise.all([patch('running'), patch('failed')]);
      expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
      const stored = (await rest(api, 'GET', `${path}/${group.id}`, { token: roles.contributor.token })).body;
      expect({ round, status: stored.status, completed: stored.completed_at !== null }).toEqual({ round, status: stored.status, completed: stored.status !== 'running' });
    }
  });

  it('answers 404 for an unknown or foreign group and 422 for a malformed id', async () => {
    const stranger = await createUser();
    const foreign = await createGroup(api, stranger);
    expect((await rest(api, 'GET', `${path}/${foreign.id}`, { token: roles.contributor.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${path}/${crypto.randomUUID()}`, { token: roles.contributor.token })).status).toBe(404);
    const bad = await rest(api, 'GET', `${path}/not-a-uuid`, { token: roles.contributor.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ loc: ['path', 'group_id'], type: 'uuid_parsing' });
  });

  it('creates a group and navigates group → sessions through GraphQL', async () => {
    const target = { org: roles.orgKey, workspace: 'default' };
    const created = await runOperation(api, 'CreateSessionGroup', { ...target, input: { kind: 'workflow', project_id: projectId } }, roles.contributor.token);
    const group = created.body.data.create_session_group;
    expect(group).toMatchObject({ kind: 'workflow', session_count: 0 });
    const mine = await saveSession(api, roles.contributor, { group_id: group.id }, { orgKey: roles.orgKey });
    await saveSession(api, roles.owner, { group_id: group.id }, { orgKey: roles.orgKey }); // private: hidden from the contributor
    const res = await runOperation(api, 'SessionGroup', { ...target, group_id: group.id }, roles.contributor.token);
    // Counts cover every session of the group; the sessions field only what the caller can see.
    expect(res.body.data.session_group).toMatchObject({ id: group.id, session_count: 2, sessions: [expect.objectContaining({ id: mine.id })] });
    expect(res.body.data.session_group.sessions).toHaveLength(1);
    const restGroup = await rest(api, 'GET', `${path}/${group.id}`, { token: roles.contributor.token });
    expect(restGroup.body).not.toHaveProperty('sessions');
  });
});

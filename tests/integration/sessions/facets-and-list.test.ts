import crypto from 'node:crypto';
import { addMember, createUser, type TestUser } from '../../factories/accounts';
import { createGroup, createProject, createWorkspace, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();

/**
 * One workspace with a known set of sessions:
 * alice (owner of the org), bob (contributor), carol (reader, owns nothing).
 */
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let orgKey: string;
let wsKey: string;
let path: string;
const ids: Record<string, string> = {};
let projectId: string;

async function save(user: TestUser, name: string, body: Record<string, unknown>) {
  const session = await saveSession(api, user, body, { orgKey, ws: wsKey });
  ids[name] = session.id;
  return session;
}

beforeAll(async () => {
  alice = await createUser({ full_name: 'Alice A' });
  bob = await createUser();
  carol = await createUser();
  orgKey = alice.orgKey;
  await addMember(orgKey, bob, 'contributor');
  await addMember(orgKey, carol, 'reader');
  wsKey = (await createWorkspace(orgKey)).key;
  path = sessionsPath(orgKey, wsKey);
  const { ProjectModel, WorkspaceModel } = await import('../../../models');
  const ws = await WorkspaceModel.findOne({ where: { key: wsKey } });
  const project = await ProjectModel.create({ organization_id: ws!.organization_id, workspace_id: ws!.id, key: 'default', name: 'Default', is_default: true });
  projectId = project.id;
  const run = await createGroup(api, alice, { kind: 'worker_run', status: 'running' }, { orgKey, ws: wsKey });
  const flow = await createGroup(api, alice, { kind: 'workflow' }, { orgKey, ws: wsKey });

  await save(alice, 'a1', { agent: 'claude', model: 'm-big', title: 'Refactor the billing module', labels: { env: ['prod'], team: ['core'] }, group_id: run.id });
  await save(alice, 'a2', { agent: 'claude', model: 'm-small', title: 'Fix login', labels: { env: ['dev'] } });
  await save(alice, 'a3', { agent: 'codex', model: 'm-big', title: 'Private notes', labels: { env: ['prod', 'dev'] }, group_id: flow.id, project_id: projectId });
  await save(bob, 'b1', { agent: 'codex', model: 'm-big', title: 'Shared billing fix', visibility: 'workspace', labels: { env: ['prod'], team: ['web'] } });
  await save(bob, 'b2', { model: 'm-small', title: "Bob's private work", labels: { env: ['prod'] } }); // invisible to alice
  await save(alice, 'w1', { agent: 'bot', model: 'm-big', origin: 'worker', title: 'Worker run', group_id: run.id });
  await save(alice, 'e1', { agent: 'bot', model: 'm-eval', origin: 'eval', title: 'Eval item' });
  await save(alice, 'x1', { agent: 'claude', model: 'm-old', title: 'Archived one', labels: { env: ['old'] } });
  const archived = await rest(api, 'POST', `${path}/${ids.x1}/archive`, { token: alice.token });
  expect(archived.status).toBe(200);
  await rest(api, 'POST', `${path}/${ids.a2}/transcript`, { token: alice.token, body: { messages: [{ role: 'user', content: 'The LOGIN page fails with TIMEOUT' }] } });
});

function byUsername(users: TestUser[]): TestUser[] {
  return [...users].sort((a, b) => (a.username < b.username ? -1 : 1));
}

function facets(user: TestUser, query: Record<string, string | number | boolean | (string | number | boolean)[]> = {}) {
  return rest(api, 'GET', `${path}/facets`, { token: user.token, query });
}

function list(user: TestUser, query: Record<string, string | number | boolean | (string | number | boolean)[]> = {}) {
  return rest(api, 'GET', path, { token: user.token, query });
}

function listed(body: { sessions: { id: string }[] }): string[] {
  const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return body.sessions.map((session) => byId.get(session.id) ?? session.id).sort();
}

describe('session facets (GET WS/sessions/facets)', () => {
  it("counts the caller's visible active user sessions per dimension, sorted by count then value", async () => {
    const res = await facets(alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      agents: [
        { count: 2, value: 'claude' },
        { count: 2, value: 'codex' },
      ],
      models: [
        { count: 3, value: 'm-big' },
        { count: 1, value: 'm-small' },
      ],
      origins: [{ count: 4, value: 'user' }],
      users: [
        { count: 3, id: alice.id, username: alice.username, email: alice.email, full_name: 'Alice A' },
        { count: 1, id: bob.id, username: bob.username, email: bob.email, full_name: null },
      ],
      labels: {
        env: [
          { count: 3, value: 'prod' },
          { count: 2, value: 'dev' },
        ],
        team: [
          { count: 1, value: 'core' },
          { count: 1, value: 'web' },
        ],
      },
      group_kinds: [
        { count: 1, value: 'worker_run' },
        { count: 1, value: 'workflow' },
      ],
      group_statuses: [{ count: 1, value: 'running' }],
    });
  });

  it('includes workload origins with include_workload_sessions=true or 1', async () => {
    for (const flag of ['true', '1']) {
      const res = await facets(alice, { include_workload_sessions: flag });
      expect(res.status).toBe(200);
      expect(res.body.origins).toEqual([
        { count: 4, value: 'user' },
        { count: 1, value: 'eval' },
        { count: 1, value: 'worker' },
      ]);
      expect(res.body.group_kinds).toEqual([
        { count: 2, value: 'worker_run' },
        { count: 1, value: 'workflow' },
      ]);
    }
    const off = await facets(alice, { include_workload_sessions: '0' });
    expect(off.body.origins).toEqual([{ count: 4, value: 'user' }]);
  });

  it('rejects a boolean that is not true/false/1/0 with 422 bool_parsing', async () => {
    const res = await facets(alice, { include_workload_sessions: 'maybe' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'include_workload_sessions'], type: 'bool_parsing' })]);
  });

  it('accepts a repeated parameter with 1000 values', async () => {
    const agents = [...Array.from({ length: 999 }, (_, index) => `agent-${index}`), 'codex'];
    const res = await facets(alice, { agent: agents });
    expect(res.status).toBe(200);
    expect(res.body.agents).toEqual([{ count: 2, value: 'codex' }]);
    // One session each: the tie is broken by username.
    expect(res.body.users.map((user: { id: string }) => user.id)).toEqual(byUsername([alice, bob]).map((user) => user.id));
  });

  it('covers archived sessions by scope', async () => {
    const archived = await facets(alice, { archived: 'archived' });
    expect(archived.body.models).toEqual([{ count: 1, value: 'm-old' }]);
    expect(archived.body.labels).toEqual({ env: [{ count: 1, value: 'old' }] });
    const any = await facets(alice, { archived: 'any' });
    expect(any.body.models.map((entry: { value: string }) => entry.value)).toEqual(['m-big', 'm-old', 'm-small']);
    const bad = await facets(alice, { archived: 'all' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ loc: ['query', 'archived'], type: 'enum' });
  });

  it('filters with AND across parameters and OR within one', async () => {
    const res = await facets(alice, { agent: ['claude', 'codex'], model: 'm-big' });
    expect(res.body.agents).toEqual([
      { count: 2, value: 'codex' },
      { count: 1, value: 'claude' },
    ]);
    expect(res.body.models).toEqual([{ count: 3, value: 'm-big' }]);
  });

  it('ORs label values of one key and ANDs different keys; omits keys without matches', async () => {
    const sameKey = await facets(alice, { label: ['env:dev', 'env:prod'] });
    expect(sameKey.body.users[0].count + (sameKey.body.users[1]?.count ?? 0)).toBe(4);
    const bothKeys = await facets(alice, { label: ['env:prod', 'team:web'] });
    expect(bothKeys.body.users).toEqual([expect.objectContaining({ id: bob.id, count: 1 })]);
    expect(bothKeys.body.labels).toEqual({ env: [{ count: 1, value: 'prod' }], team: [{ count: 1, value: 'web' }] });
    const colonValue = await facets(alice, { label: 'env:prod:extra' });
    expect(colonValue.body.labels).toEqual({});
    expect(colonValue.body.agents).toEqual([]);
  });

  it('rejects a label filter without a colon with 422 at query.label', async () => {
    const res = await facets(alice, { label: ['env:prod', 'broken'] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'label'] })]);
  });

  it('searches title and preview text case-insensitively, and rejects a search over 200 characters', async () => {
    const title = await facets(alice, { search: 'BILLING' });
    expect(title.body.users.map((user: { id: string; count: number }) => [user.id, user.count])).toEqual(
      byUsername([alice, bob]).map((user) => [user.id, 1]),
    );
    const preview = await facets(alice, { search: 'login page' });
    expect(preview.body.models).toEqual([{ count: 1, value: 'm-small' }]);
    const long = await facets(alice, { search: 'x'.repeat(201) });
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'search'], type: 'string_too_long' })]);
    expect((await facets(alice, { search: 'x'.repeat(200) })).status).toBe(200);
  });

  it('matches % and _ in search literally, not as wildcards', async () => {
    const ws = (await createWorkspace(orgKey)).key;
    const other = { orgKey, ws };
    const percent = await saveSession(api, alice, { model: 'm-percent', title: 'Growth 100% this year' }, other);
    await saveSession(api, alice, { model: 'm-digits', title: 'Growth 1000 this year' }, other);
    const underscore = await saveSession(api, alice, { model: 'm-underscore', title: 'rename key_name' }, other);
    await saveSession(api, alice, { model: 'm-letter', title: 'rename keyXname' }, other);
    const search = async (text: string) => {
      const res = await rest(api, 'GET', sessionsPath(orgKey, ws), { token: alice.token, query: { search: text } });
      expect(res.status).toBe(200);
      return res.body.sessions.map((session: { id: string }) => session.id);
    };
    expect(await search('100%')).toEqual([percent.id]); // as a wildcard, % would also match "1000"
    expect(await search('key_name')).toEqual([underscore.id]); // as a wildcard, _ would also match "keyXname"
    expect(await search('0% t')).toEqual([percent.id]);
    const viaFacets = await rest(api, 'GET', `${sessionsPath(orgKey, ws)}/facets`, { token: alice.token, query: { search: '100%' } });
    expect(viaFacets.body.models).toEqual([{ count: 1, value: 'm-percent' }]);
  });

  it('leaves sessions the caller cannot see out of group_kinds and group_statuses', async () => {
    const ws = (await createWorkspace(orgKey)).key;
    const project = await createProject(orgKey, ws);
    const hiddenGroup = await createGroup(api, bob, { kind: 'evaluation_item', status: 'failed', project_id: project.id }, { orgKey, ws });
    const sharedGroup = await createGroup(api, bob, { kind: 'workflow_run', status: 'running', project_id: project.id }, { orgKey, ws });
    await saveSession(api, bob, { group_id: hiddenGroup.id }, { orgKey, ws }); // private to bob
    await saveSession(api, bob, { group_id: sharedGroup.id, visibility: 'workspace' }, { orgKey, ws });
    const facetsOf = (user: TestUser) => rest(api, 'GET', `${sessionsPath(orgKey, ws)}/facets`, { token: user.token });
    const seenByAlice = await facetsOf(alice);
    expect(seenByAlice.body.group_kinds).toEqual([{ count: 1, value: 'workflow_run' }]);
    expect(seenByAlice.body.group_statuses).toEqual([{ count: 1, value: 'running' }]);
    const seenByBob = await facetsOf(bob);
    expect(seenByBob.body.group_kinds).toEqual([
      { count: 1, value: 'evaluation_item' },
      { count: 1, value: 'workflow_run' },
    ]);
    expect(seenByBob.body.group_statuses).toEqual([
      { count: 1, value: 'failed' },
      { count: 1, value: 'running' },
    ]);
  });

  it("filters by owner with user (id, username or e-mail) and user_id", async () => {
    for (const value of [bob.id, bob.username, bob.email.toUpperCase()]) {
      const res = await facets(alice, { user: value });
      expect(res.body.users).toEqual([expect.objectContaining({ id: bob.id, count: 1 })]);
    }
    const either = await facets(alice, { user: [alice.username, bob.email] });
    expect(either.body.users).toHaveLength(2);
    const byId = await facets(alice, { user_id: alice.id });
    expect(byId.body.users).toEqual([expect.objectContaining({ id: alice.id, count: 3 })]);
    const badId = await facets(alice, { user_id: 'nope' });
    expect(badId.status).toBe(422);
    expect(badId.body.errors[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'uuid_parsing' });
  });

  it('shows a reader only shared sessions, and hides the workspace from strangers', async () => {
    const res = await facets(carol);
    expect(res.status).toBe(200);
    expect(res.body.users).toEqual([expect.objectContaining({ id: bob.id, count: 1 })]);
    const stranger = await createUser();
    expect((await facets(stranger)).status).toBe(404);
    expect((await rest(api, 'GET', `${path}/facets`, {})).status).toBe(401);
  });

  it('answers the same counts through GraphQL', async () => {
    const res = await gql(
      api,
      `query($o: String!, $w: String!) { session_facets(org: $o, workspace: $w, label: ["env:prod"]) { models { value count } users { username count } labels } }`,
      { o: orgKey, w: wsKey },
      alice.token,
    );
    expect(res.body.data.session_facets.models).toEqual([{ value: 'm-big', count: 3 }]);
    expect(res.body.data.session_facets.labels.team).toEqual([
      { count: 1, value: 'core' },
      { count: 1, value: 'web' },
    ]);
  });
});

describe('session indexes', () => {
  it('has no labels GIN index any more (the label filter never used it; migration 0006)', async () => {
    const { database } = await import('../../../src/db/database');
    const rows = await database().query("SELECT indexname FROM pg_indexes WHERE tablename = 'sessions' ORDER BY indexname", { type: 'SELECT' as never });
    const names = (rows as unknown as { indexname: string }[]).map((row) => row.indexname);
    expect(names).toContain('sessions_active_workspace_idx');
    expect(names).not.toContain('sessions_labels_idx');
  });
});

describe('session list (GET WS/sessions)', () => {
  it('lists visible active user sessions with the page envelope', async () => {
    const res = await list(alice);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['has_next', 'has_previous', 'limit', 'page', 'sessions', 'total', 'total_pages']);
    expect(listed(res.body)).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(res.body).toMatchObject({ total: 4, page: 1, limit: 20, total_pages: 1, has_next: false, has_previous: false });
  });

  it('pages with total_pages, has_next and has_previous; a page past the end is empty with true totals', async () => {
    const first = await list(alice, { limit: 3 });
    expect(first.body).toMatchObject({ total: 4, total_pages: 2, has_next: true, has_previous: false });
    expect(first.body.sessions).toHaveLength(3);
    const second = await list(alice, { limit: 3, page: 2 });
    expect(second.body).toMatchObject({ total: 4, page: 2, has_next: false, has_previous: true });
    expect(second.body.sessions).toHaveLength(1);
    const past = await list(alice, { limit: 3, page: 5 });
    expect(past.body).toMatchObject({ sessions: [], total: 4, total_pages: 2, has_next: false, has_previous: true });
  });

  it('sorts by every column in both directions, ties broken by id', async () => {
    type Row = { id: string; created_at: string; updated_at: string; last_message_at: string | null; message_count: number };
    const key = (row: Row, column: string): number | null => {
      const value = row[column as keyof Row];
      if (value == null) return null;
      return typeof value === 'number' ? value : Date.parse(value);
    };
    /** The expected order: by the column (nulls last in both directions), then by id, in the direction. */
    const expected = (rows: Row[], column: string, dir: 'asc' | 'desc') =>
      [...rows]
        .sort((a, b) => {
          const [x, y] = [key(a, column), key(b, column)];
          if (x == null || y == null) return x == null && y == null ? 0 : x == null ? 1 : -1;
          return dir === 'asc' ? x - y : y - x;
        })
        .map((row) => row.id);
    const orders: Record<string, string[]> = {};
    for (const column of ['updated_at', 'last_message_at', 'created_at', 'message_count']) {
      for (const dir of ['asc', 'desc'] as const) {
        const res = await list(alice, { sort_by: column, sort_dir: dir });
        expect(res.status).toBe(200);
        const rows: Row[] = res.body.sessions;
        const got = rows.map((row) => row.id);
        // values in order; equal values (here: ties) ordered by id in the same direction
        expect(got).toEqual(expected(rows, column, dir));
        for (let index = 1; index < rows.length; index += 1) {
          const [a, b] = [rows[index - 1], rows[index]];
          if (key(a, column) === key(b, column)) expect(dir === 'asc' ? a.id < b.id : a.id > b.id).toBe(true);
        }
        orders[`${column} ${dir}`] = got;
      }
    }
    // The fixture's known orders: created a1 < a2 < a3 < b1; a2 was updated last (transcript) and is the
    // only one with messages.
    expect(orders['created_at asc']).toEqual([ids.a1, ids.a2, ids.a3, ids.b1]);
    expect(orders['created_at desc']).toEqual([ids.b1, ids.a3, ids.a2, ids.a1]);
    expect(orders['updated_at asc']).toEqual([ids.a1, ids.a3, ids.b1, ids.a2]);
    expect(orders['updated_at desc']).toEqual([ids.a2, ids.b1, ids.a3, ids.a1]);
    const others = [ids.a1, ids.a3, ids.b1].sort();
    expect(orders['last_message_at asc']).toEqual([ids.a2, ...others]);
    expect(orders['last_message_at desc']).toEqual([ids.a2, ...[...others].reverse()]);
    expect(orders['message_count asc']).toEqual([...others, ids.a2]);
    expect(orders['message_count desc']).toEqual([ids.a2, ...[...others].reverse()]);
    // default: updated_at desc
    expect((await list(alice)).body.sessions.map((row: Row) => row.id)).toEqual(orders['updated_at desc']);
  });

  it('applies the facet filters and workload / archived scopes', async () => {
    expect(listed((await list(alice, { include_workload_sessions: 'true' })).body)).toEqual(['a1', 'a2', 'a3', 'b1', 'e1', 'w1']);
    expect(listed((await list(alice, { archived: 'archived' })).body)).toEqual(['x1']);
    expect(listed((await list(alice, { label: ['env:dev', 'team:core'] })).body)).toEqual([]);
    expect(listed((await list(alice, { label: ['env:dev', 'env:prod'], agent: 'codex' })).body)).toEqual(['a3', 'b1']);
    expect(listed((await list(alice, { search: 'timeout' })).body)).toEqual(['a2']);
    expect(listed((await list(alice, { origin: ['worker', 'eval'], include_workload_sessions: '1' })).body)).toEqual(['e1', 'w1']);
    expect(listed((await list(alice, { project_id: [projectId, crypto.randomUUID()] })).body)).toEqual(['a3']);
    const badProject = await list(alice, { project_id: [projectId, 'nope'] });
    expect(badProject.status).toBe(422);
    expect(badProject.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'project_id', 1], type: 'uuid_parsing' })]);
  });

  it('rejects out-of-range paging and unknown sort values with 422 query locations', async () => {
    const res = await list(alice, { limit: 101, page: 0, sort_by: 'title', sort_dir: 'up' });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['query.sort_by', 'enum'],
        ['query.sort_dir', 'enum'],
      ]),
    );
    const range = await list(alice, { limit: 101, page: 0 });
    const rangeItems = range.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(rangeItems).toEqual(
      expect.arrayContaining([
        ['query.limit', 'less_than_equal'],
        ['query.page', 'greater_than_equal'],
      ]),
    );
  });

  it('lists through GraphQL with nested fields', async () => {
    const res = await gql(
      api,
      `query($o: String!, $w: String!) { sessions(org: $o, workspace: $w, sort_by: created_at, sort_dir: asc, limit: 2) { total sessions { id project_key created_by { username } } } }`,
      { o: orgKey, w: wsKey },
      alice.token,
    );
    expect(res.body.data.sessions.total).toBe(4);
    expect(res.body.data.sessions.sessions).toEqual([
      { id: ids.a1, project_key: null, created_by: { username: alice.username } },
      { id: ids.a2, project_key: null, created_by: { username: alice.username } },
    ]);
  });
});

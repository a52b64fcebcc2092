import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { capabilityBody, catalogName } from '../../factories/catalogs';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * The catalogs belong to the whole organization: an API key limited to one
 * workspace reads them and writes nothing (403 forbidden_error), whatever its
 * user's role, over REST and GraphQL.
 */
const api = useTestApp();
let owner: TestUser;
let org: string;
let workspaceKey: string;
let fullKey: string;
const DS = catalogName('ds');
const CAP = catalogName('cap');
const TASK = catalogName('task');
const SET = catalogName('set');

const withKey = (key: string, body?: unknown) => ({ headers: { 'x-api-key': key }, body });

beforeAll(async () => {
  ({ owner, orgKey: org } = await createOrgWithRoles());
  const workspace = await rest(api, 'GET', `/org/${org}/ws/default`, { token: owner.token });
  workspaceKey = (await createApiKey(api, owner, { workspace_id: workspace.body.id })).key;
  fullKey = (await createApiKey(api, owner)).key;
  for (const [kind, body] of [
    ['datasets', { name: DS, version: '1.0.0' }],
    ['capabilities', capabilityBody(CAP)],
    ['tasks', { name: TASK, version: '1.0.0' }],
    ['task-sets', { name: SET, members: [TASK] }],
  ] as const) {
    const res = await rest(api, 'POST', `/org/${org}/${kind}`, { token: owner.token, body });
    expect(res.status).toBe(201);
  }
});

// Every row has its four values: jest.each passes a shorter row's function a `done` callback.
const WRITES: [label: string, method: string, path: string, body: unknown][] = [
  ['publishes a dataset', 'POST', 'datasets', { name: catalogName('ds'), version: '1.0.0', is_public: true }],
  ['publishes a new dataset version', 'POST', 'datasets', { name: DS, version: '1.1.0', is_public: true }],
  ['makes a dataset public', 'PATCH', `datasets/${DS}/visibility`, { is_public: true }],
  ['deletes a dataset version', 'DELETE', `datasets/${DS}/1.0.0`, undefined],
  ['publishes a capability', 'POST', 'capabilities', capabilityBody(catalogName('cap'))],
  ['publishes a new capability version', 'POST', 'capabilities', capabilityBody(CAP, '1.1.0')],
  ['makes a capability public', 'PATCH', `capabilities/${CAP}/visibility`, { is_public: true }],
  ['deletes a capability version', 'DELETE', `capabilities/${CAP}/1.0.0`, undefined],
  ['publishes a task', 'POST', 'tasks', { name: catalogName('task'), version: '1.0.0' }],
  ['publishes a new task version', 'POST', 'tasks', { name: TASK, version: '1.1.0' }],
  ['makes a task public', 'PATCH', `tasks/${TASK}/visibility`, { is_public: true }],
  ['deletes a task version', 'DELETE', `tasks/${TASK}/1.0.0`, undefined],
  ['creates a task set', 'POST', 'task-sets', { name: catalogName('set'), members: [TASK] }],
  ['replaces a task set', 'PUT', `task-sets/${SET}`, { name: SET, members: [TASK], is_public: true }],
  ['makes a task set public', 'PATCH', `task-sets/${SET}/visibility`, { is_public: true }],
  ['deletes a task set', 'DELETE', `task-sets/${SET}`, undefined],
];

describe('catalog writes with a workspace-limited API key', () => {
  it.each(WRITES)('refuses a key limited to one workspace that %s with 403', async (_label, method, path, body) => {
      const res = await rest(api, method, `/org/${org}/${path}`, withKey(workspaceKey, body));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 403, type: 'forbidden_error', detail: expect.stringContaining('limited to one workspace') });
  });

  it('left every artifact as it was: private, every version still there, nothing new', async () => {
    for (const kind of ['datasets', 'capabilities', 'tasks']) {
      const list = await rest(api, 'GET', `/org/${org}/${kind}`, { token: owner.token });
      expect(list.body.total).toBe(1);
      const name = kind === 'datasets' ? DS : kind === 'capabilities' ? CAP : TASK;
      const versions = await rest(api, 'GET', `/org/${org}/${kind}/${name}/versions`, { token: owner.token });
      expect(versions.body).toMatchObject({ versions: ['1.0.0'], latest: { is_public: false } });
    }
    const set = await rest(api, 'GET', `/org/${org}/task-sets/${SET}`, { token: owner.token });
    expect(set.body).toMatchObject({ is_public: false, members: [TASK], description: null });
    expect((await rest(api, 'GET', `/org/${org}/task-sets`, { token: owner.token })).body.total).toBe(1);
  });

  it('refuses the same writes as GraphQL mutations with 403', async () => {
    const mutations: [string, Record<string, unknown>][] = [
      ['mutation($org: String!, $input: PublishDatasetRequest!) { publish_dataset(org: $org, input: $input) { id } }', { input: { name: DS, version: '2.0.0' } }],
      ['mutation($org: String!, $input: PublishCapabilityRequest!) { publish_capability(org: $org, input: $input) { id } }', { input: capabilityBody(CAP, '2.0.0') }],
      ['mutation($org: String!, $input: PublishTaskRequest!) { publish_task(org: $org, input: $input) { id } }', { input: { name: TASK, version: '2.0.0' } }],
      ['mutation($org: String!, $name: String!) { set_dataset_visibility(org: $org, name: $name, input: { is_public: true }) { id } }', { name: DS }],
      ['mutation($org: String!, $name: String!) { set_capability_visibility(org: $org, name: $name, input: { is_public: true }) { id } }', { name: CAP }],
      ['mutation($org: String!, $name: String!) { set_task_visibility(org: $org, name: $name, input: { is_public: true }) { id } }', { name: TASK }],
      ['mutation($org: String!, $name: String!) { delete_dataset_version(org: $org, name: $name, version: "1.0.0") { deleted } }', { name: DS }],
      ['mutation($org: String!, $name: String!) { delete_capability_version(org: $org, name: $name, version: "1.0.0") { deleted } }', { name: CAP }],
      ['mutation($org: String!, $name: String!) { delete_task_version(org: $org, name: $name, version: "1.0.0") { deleted } }', { name: TASK }],
      ['mutation($org: String!, $input: TaskSetRequest!) { create_task_set(org: $org, input: $input) { id } }', { input: { name: catalogName('set'), members: [TASK] } }],
      ['mutation($org: String!, $name: String!, $input: TaskSetRequest!) { replace_task_set(org: $org, name: $name, input: $input) { id } }', { name: SET, input: { name: SET, members: [] } }],
      ['mutation($org: String!, $name: String!) { set_task_set_visibility(org: $org, name: $name, input: { is_public: true }) { id } }', { name: SET }],
      ['mutation($org: String!, $name: String!) { delete_task_set(org: $org, name: $name) { deleted } }', { name: SET }],
    ];
    for (const [query, variables] of mutations) {
      const res = await rest(api, 'POST', '/graphql', withKey(workspaceKey, { query, variables: { org, ...variables } }));
      expect({ query, data: res.body.data ?? null, extensions: res.body.errors?.[0]?.extensions }).toMatchObject({
        query,
        data: null,
        extensions: { status: 403, type: 'forbidden_error' },
      });
    }
    const set = await rest(api, 'GET', `/org/${org}/task-sets/${SET}`, { token: owner.token });
    expect(set.body).toMatchObject({ is_public: false, members: [TASK] });
  });

  it('still lets the key read every catalog, over REST and GraphQL', async () => {
    for (const [kind, name] of [['datasets', DS], ['capabilities', CAP], ['tasks', TASK], ['task-sets', SET]]) {
      const list = await rest(api, 'GET', `/org/${org}/${kind}`, withKey(workspaceKey));
      expect([kind, list.status, list.body.total]).toEqual([kind, 200, 1]);
      const one = await rest(api, 'GET', `/org/${org}/${kind}/${name}`, withKey(workspaceKey));
      expect([kind, one.status]).toEqual([kind, 200]);
    }
    const res = await rest(api, 'POST', '/graphql', withKey(workspaceKey, { query: 'query($org: String!) { tasks(org: $org) { total } task_sets(org: $org) { total } }', variables: { org } }));
    expect(res.body).toEqual({ data: { tasks: { total: 1 }, task_sets: { total: 1 } } });
  });

  it("lets the same user's unrestricted key write, so the refusals are about the workspace limit", async () => {
    const published = await rest(api, 'POST', `/org/${org}/datasets`, withKey(fullKey, { name: DS, version: '1.2.0' }));
    expect(published.status).toBe(201);
    const visibility = await rest(api, 'PATCH', `/org/${org}/task-sets/${SET}/visibility`, withKey(fullKey, { is_public: false }));
    expect(visibility.status).toBe(200);
    const query = 'mutation($org: String!, $name: String!) { set_task_visibility(org: $org, name: $name, input: { is_public: false }) { is_public } }';
    const viaGraphql = await gql(api, query, { org, name: TASK }, owner.token);
    expect(viaGraphql.body.data).toEqual({ set_task_visibility: { is_public: false } });
  });
});

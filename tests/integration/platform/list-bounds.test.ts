import { createUser, randomKey, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/** No reply embeds an unbounded list: bare-array lists page with page/limit, facets keep their top values. */
const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
  for (const key of ['ws-a', 'ws-b', 'ws-c']) {
    expect((await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, body: { key, name: key } })).status).toBe(201);
  }
});

describe('bounded lists', () => {
  it('pages the workspaces of an organization with page and limit, in a stable order', async () => {
    const all = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expect(all.body.workspaces.map((ws: { key: string }) => ws.key)).toEqual(['default', 'ws-a', 'ws-b', 'ws-c']);
    const second = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, query: { page: 2, limit: 2 } });
    expect(second.status).toBe(200);
    expect(second.body.workspaces.map((ws: { key: string }) => ws.key)).toEqual(['ws-b', 'ws-c']);
    const past = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, query: { page: 3, limit: 2 } });
    expect(past.body.workspaces).toEqual([]);
  });

  it('refuses a page size over 100 or a page below 1 with 422 at the query parameter', async () => {
    const paths = [`/org/${user.orgKey}/ws`, `/org/${user.orgKey}/ws/default/projects`, `/org/${user.orgKey}/members`, '/user/api-keys', '/user/organizations'];
    for (const path of paths) {
      const tooMany = await rest(api, 'GET', path, { token: user.token, query: { limit: 101 } });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'limit'] })]);
      const page = await rest(api, 'GET', path, { token: user.token, query: { page: 0 } });
      expect(page.status).toBe(422);
      expect(page.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'page'] })]);
    }
  });

  it('pages projects, members, API keys and organizations', async () => {
    await rest(api, 'POST', `/org/${user.orgKey}/ws/default/projects`, { token: user.token, body: { key: randomKey('p'), name: 'Second' } });
    const projects = await rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token, query: { limit: 1, page: 2 } });
    expect(projects.body).toHaveLength(1);
    expect(projects.body[0].key).not.toBe('default');
    await createApiKey(api, user, { name: 'one' });
    await createApiKey(api, user, { name: 'two' });
    const keys = await rest(api, 'GET', '/user/api-keys', { token: user.token, query: { limit: 1 } });
    expect(keys.body.map((key: { name: string }) => key.name)).toEqual(['two']);
    const members = await rest(api, 'GET', `/org/${user.orgKey}/members`, { token: user.token, query: { limit: 1, page: 2 } });
    expect(members.body).toEqual([]);
    const orgs = await rest(api, 'GET', '/user/organizations', { token: user.token, query: { limit: 1 } });
    expect(orgs.body.map((org: { key: string }) => org.key)).toEqual([user.orgKey]);
  });

  it('bounds workspace.projects in GraphQL by its limit', async () => {
    const res = await gql(api, '{ workspaces(org: "' + user.orgKey + '", limit: 1) { workspaces { key projects(limit: 1) { key } } } }', {}, user.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.workspaces.workspaces).toHaveLength(1);
    expect(res.body.data.workspaces.workspaces[0].projects).toHaveLength(1);
  });

  it('keeps the 100 most frequent values of a facet', async () => {
    const ws = 'ws-c';
    for (let index = 0; index < 101; index += 1) await saveSession(api, user, { agent: `agent-${String(index).padStart(3, '0')}` }, { ws });
    await saveSession(api, user, { agent: 'agent-100' }, { ws });
    const res = await rest(api, 'GET', `${sessionsPath(user.orgKey, ws)}/facets`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.agents).toHaveLength(100);
    expect(res.body.agents[0]).toEqual({ value: 'agent-100', count: 2 });
    expect(res.body.agents.map((entry: { value: string }) => entry.value)).not.toContain('agent-099');
  });

  it('refuses more than 1000 values of a repeatable filter with 422', async () => {
    const agents = Array.from({ length: 1001 }, (_, index) => `a${index}`);
    const res = await rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { agent: agents } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'agent'] })]);
  });

  it('refuses a page deeper than 10,000 rows with 422 at the page, for session lists and bare lists alike', async () => {
    const deep = await rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { page: 102, limit: 100 } });
    expect(deep.status).toBe(422);
    expect(deep.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'page'], type: 'less_than_equal' })]);
    expect((await rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { page: 101, limit: 100 } })).status).toBe(200);
    const groups = await rest(api, 'GET', `${sessionsPath(user.orgKey)}/groups`, { token: user.token, query: { page: 502, limit: 20 } });
    expect(groups.status).toBe(422);
    const workspaces = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, query: { page: 102, limit: 100 } });
    expect(workspaces.status).toBe(422);
    expect(workspaces.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'page'] })]);
  });

  it('prices a list over archived sessions like a search: one per operation', async () => {
    const two = `{ a: sessions(org: "${user.orgKey}", workspace: "default", archived: any, limit: 1) { total } b: sessions(org: "${user.orgKey}", workspace: "default", archived: any, limit: 1) { total } }`;
    const res = await gql(api, two, {}, user.token);
    expect(res.status).toBe(422);
    expect(res.body.errors![0].extensions.errors[0].type).toBe('query_cost');
  });

  it('treats a NUL character in an organization key as an unknown organization or invalid input, never a 500', async () => {
    const rest404 = await rest(api, 'GET', '/org/%00/ws', { token: user.token });
    expect([404, 422]).toContain(rest404.status);
    const graphql = await gql(api, 'query($o: String!) { organization(org: $o) { id } }', { o: 'a\u0000b' }, user.token);
    expect(graphql.body.errors![0].extensions.status).not.toBe(500);
    const inline = await gql(api, '{ organization(org: "a\\u0000b") { id } }', {}, user.token);
    expect(inline.body.errors![0].extensions).toMatchObject({ status: 404, type: 'not_found_error' });
  });
});

import { createUser, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { appendMessages, createGroup, defaultProject, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

/**
 * The fixed cost of a request, counted in SQL statements (deterministic, so
 * a test rather than a benchmark): a single-session read costs at most 4.
 */
const api = useTestApp();
let user: TestUser;
let sessionId: string;

beforeAll(async () => {
  user = await createUser();
  const group = await createGroup(api, user, { kind: 'workflow' });
  const project = await defaultProject(user.orgKey);
  const session = await saveSession(api, user, { group_id: group.id, project_id: project.id, visibility: 'workspace', title: 'costed' });
  sessionId = session.id;
  await appendMessages(api, user, sessionId, [{ role: 'assistant', content: 'hi', usage: { input_tokens: 3, output_tokens: 4 } }]);
});

describe('the fixed cost of a request', () => {
  it('reads one session over REST with a JWT in 2 statements: credential and tenant, then the session with its relations and usage', async () => {
    const { result, statements } = await countStatements(() => rest(api, 'GET', `${sessionsPath(user.orgKey)}/${sessionId}`, { token: user.token }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: sessionId, project_key: 'default', group: { kind: 'workflow', message_count: 1 }, created_by: { id: user.id } });
    expect(result.body.usage.total_input_tokens).toBe(3);
    expect(statements).toHaveLength(2);
  });

  it('reads one session over REST with an API key in as many statements', async () => {
    const key = await createApiKey(api, user, { name: 'cost' });
    await rest(api, 'GET', '/user', { headers: { 'x-api-key': key.key } }); // records last_used_at (at most once a minute)
    const { result, statements } = await countStatements(() => rest(api, 'GET', `${sessionsPath(user.orgKey)}/${sessionId}`, { headers: { 'x-api-key': key.key } }));
    expect(result.status).toBe(200);
    expect(statements).toHaveLength(2);
  });

  it('reads one session over GraphQL in at most 4 statements, and pays only for what it selects', async () => {
    const full = `query($o: String!, $id: String!) { session(org: $o, workspace: "default", session_id: $id) {
      id project_key group { kind session_count } created_by { username } usage { total_input_tokens } } }`;
    const selected = await countStatements(() => gql(api, full, { o: user.orgKey, id: sessionId }, user.token));
    expect(selected.result.body.errors).toBeUndefined();
    expect(selected.result.body.data.session.usage.total_input_tokens).toBe(3);
    expect(selected.statements).toHaveLength(3);
    const bare = await countStatements(() => gql(api, 'query($o: String!, $id: String!) { session(org: $o, workspace: "default", session_id: $id) { id title } }', { o: user.orgKey, id: sessionId }, user.token));
    expect(bare.result.body.data.session.title).toBe('costed');
    // Credential, tenant, the session: no usage aggregate, no group, project or people statements.
    expect(bare.statements).toHaveLength(3);
    expect(bare.statements.filter((sql) => /session_messages/.test(sql))).toEqual([]);
  });

  it('lists a page over REST in 3 statements: credential and tenant, the count, the page with its relations and usage', async () => {
    const { result, statements } = await countStatements(() => rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { limit: 100 } }));
    expect(result.status).toBe(200);
    const [first] = result.body.sessions;
    expect(first).toMatchObject({ id: sessionId, project_key: 'default', group: { kind: 'workflow' }, created_by: { id: user.id } });
    expect(first.usage.total_output_tokens).toBe(4);
    expect(statements).toHaveLength(3);
  });

  it('serves the dashboard navigation workspace → sessions { group created_by project } in 3 statements', async () => {
    const query = `query($o: String!) { workspace(org: $o, workspace: "default") {
      sessions(limit: 100) { id group { kind status session_count } created_by { username } project { key name } } } }`;
    const { result, statements } = await countStatements(() => gql(api, query, { o: user.orgKey }, user.token));
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.workspace.sessions[0]).toMatchObject({ id: sessionId, group: { kind: 'workflow', session_count: 1 }, created_by: { username: user.username } });
    // Credential, tenant, the sessions with their groups, owners and projects.
    expect(statements).toHaveLength(3);
  });

  it('lists a dashboard page without paying for fields it does not select', async () => {
    const query = `query($o: String!) { sessions(org: $o, workspace: "default", limit: 100) { total sessions { id title } } }`;
    const { result, statements } = await countStatements(() => gql(api, query, { o: user.orgKey }, user.token));
    expect(result.body.errors).toBeUndefined();
    // Credential, tenant, count and page.
    expect(statements).toHaveLength(4);
    expect(statements.filter((sql) => /session_messages|session_groups|FROM users WHERE id = ANY|FROM projects/.test(sql))).toEqual([]);
  });
});

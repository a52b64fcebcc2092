import { getIntrospectionQuery } from 'graphql';
import { config } from '../../../src/config/config';
import { createUser, type TestUser } from '../../factories/accounts';
import { createGroup, saveSession } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

/**
 * OWASP API4 (unrestricted resource consumption) on /graphql: every attack of
 * the issue is refused with 422 validation_error before execution, naming
 * what was measured and the limit, and the server answers normally after.
 * "Before execution" is checked by the statements the request caused: only
 * the caller's authentication, never a statement on sessions.
 */
const api = useTestApp();
let user: TestUser;
let scope: string;

const FOUR_LEVELS = (org: string) => `{ workspace(org: "${org}", workspace: "default") {
  sessions(limit: 100) { id group { sessions(limit: 100) { id group { sessions(limit: 100) { id group { sessions(limit: 100) { id } } } } } } } } }`;

beforeAll(async () => {
  user = await createUser();
  scope = `org: "${user.orgKey}", workspace: "default"`;
  const projects = await rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token });
  const group = await createGroup(api, user, { kind: 'workflow', project_id: projects.body[0].id });
  for (let index = 0; index < 100; index += 1) await saveSession(api, user, { group_id: group.id, visibility: 'workspace' });
});

/** Runs a GraphQL request and the SQL statements it caused. */
async function refused(body: unknown): Promise<{ status: number; body: any; statements: string[] }> {
  const { result, statements } = await countStatements(() => rest(api, 'POST', '/graphql', { token: user.token, body }));
  return { status: result.status, body: result.body, statements };
}

function expectRefusedBeforeExecution(result: { status: number; body: any; statements: string[] }, type: string, message: RegExp): void {
  expect(result.status).toBe(422);
  expect(result.body.data).toBeUndefined();
  const [error] = result.body.errors;
  expect(error.extensions).toMatchObject({ type: 'validation_error', status: 422 });
  expect(error.extensions.errors).toEqual(expect.arrayContaining([expect.objectContaining({ type, msg: expect.stringMatching(message) })]));
  expect(error.message).toMatch(message);
  expect(result.statements.filter((sql) => /\bsessions\b/.test(sql))).toEqual([]);
}

async function expectStillServing(): Promise<void> {
  const res = await gql(api, `{ sessions(${scope}, limit: 5) { total sessions { id } } }`, {}, user.token);
  expect(res.status).toBe(200);
  expect(res.body.data.sessions.total).toBe(100);
}

describe('GraphQL resource limits', () => {
  it('refuses four levels of sessions(limit: 100) → group with its cost and the limit, before any session is read', async () => {
    const result = await refused({ query: FOUR_LEVELS(user.orgKey) });
    expectRefusedBeforeExecution(result, 'query_cost', new RegExp(`Query cost \\d+ exceeds the limit of ${config().GRAPHQL_MAX_COST}`));
    await expectStillServing();
  });

  it('refuses 2,000 aliases of workspace → sessions(limit: 100) while parsing, at the token limit', async () => {
    const aliases = Array.from({ length: 2000 }, (_, index) => `a${index}: workspace(${scope}) { sessions(limit: 100) { id } }`).join('\n');
    const result = await refused({ query: `{ ${aliases} }` });
    expect(result.status).toBe(422);
    expect(result.body.errors[0].extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(result.body.errors[0].message).toMatch(new RegExp(`more tha[nt] ${config().GRAPHQL_MAX_TOKENS} tokens`));
    expect(result.statements.filter((sql) => /\bsessions\b/.test(sql))).toEqual([]);
    await expectStillServing();
  });

  it('refuses more aliases than the limit, naming the count and the limit', async () => {
    const count = config().GRAPHQL_MAX_ALIASES + 10;
    const aliases = Array.from({ length: count }, (_, index) => `a${index}: workspace(${scope}) { id }`).join('\n');
    const result = await refused({ query: `{ ${aliases} }` });
    expectRefusedBeforeExecution(result, 'query_aliases', new RegExp(`Aliases limit of ${config().GRAPHQL_MAX_ALIASES} exceeded, found ${count}`));
    await expectStillServing();
  });

  it('refuses deeply nested fragments by their depth', async () => {
    const levels = 40;
    const fragments = Array.from(
      { length: levels },
      (_, index) => `fragment F${index} on SessionResponse { id group { sessions(limit: 1) { ${index + 1 < levels ? `...F${index + 1}` : 'id'} } } }`,
    ).join('\n');
    const result = await refused({ query: `{ sessions(${scope}, limit: 1) { sessions { ...F0 } } }\n${fragments}` });
    expectRefusedBeforeExecution(result, 'query_depth', new RegExp(`Query depth limit of ${config().GRAPHQL_MAX_DEPTH} exceeded, found \\d+`));
    await expectStillServing();
  });

  it('refuses a fragment that doubles at every level without exploring it exponentially', async () => {
    // Each fragment spreads the next one twice under two aliases: 2^30 paths once expanded.
    const levels = 30;
    const fragments = Array.from(
      { length: levels },
      (_, index) =>
        `fragment D${index} on SessionGroupSummary { ${index + 1 < levels ? `x: sessions(limit: 1) { group { ...D${index + 1} } } y: sessions(limit: 2) { group { ...D${index + 1} } }` : 'id'} }`,
    ).join('\n');
    const result = await refused({ query: `{ session_groups(${scope}, limit: 1) { groups { ...D0 } } }\n${fragments}` });
    expect(result.status).toBe(422);
    expect(result.body.errors[0].extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(result.statements.filter((sql) => /\bsessions\b/.test(sql))).toEqual([]);
    await expectStillServing();
  });

  it('refuses a huge list variable at the variable, with 422 and its location', async () => {
    const ids = Array.from({ length: 20_000 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
    const result = await refused({
      query: 'query($o: String!, $p: [UUID!]) { sessions(org: $o, workspace: "default", project_id: $p, limit: 1) { total } }',
      variables: { o: user.orgKey, p: ids },
    });
    expect(result.status).toBe(200);
    const [error] = result.body.errors;
    expect(error.extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(error.extensions.errors[0]).toMatchObject({ loc: ['project_id'] });
    expect(result.statements.filter((sql) => /\bsessions\b/.test(sql))).toEqual([]);
    await expectStillServing();
  });

  it('refuses a 1 MiB query string after a bounded number of tokens', async () => {
    const query = `{ ${'__typename '.repeat(95_000)}}`;
    expect(query.length).toBeGreaterThan(1_000_000);
    const result = await refused({ query });
    expect(result.status).toBe(422);
    // graphql-js spells it "more that".
    expect(result.body.errors[0].message).toMatch(new RegExp(`more tha[nt] ${config().GRAPHQL_MAX_TOKENS} tokens`));
    expect(result.body.errors[0].extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(result.statements).toHaveLength(1); // the caller's authentication
    await expectStillServing();
  });

  it('refuses a body over 1 MiB with 400 invalid_error before reading it whole', async () => {
    const res = await rest(api, 'POST', '/graphql', { token: user.token, body: { query: `{ ${'__typename '.repeat(120_000)}}` } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, type: 'invalid_error' });
    await expectStillServing();
  });

  it('admits the standard introspection query and the fuller one GraphiQL sends', async () => {
    const graphiql = getIntrospectionQuery({ descriptions: true, schemaDescription: true, inputValueDeprecation: true, directiveIsRepeatable: true, specifiedByUrl: true });
    for (const query of [getIntrospectionQuery(), graphiql]) {
      const res = await gql(api, query, {}, user.token);
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.__schema.queryType.name).toBe('Query');
    }
    const anonymous = await gql(api, graphiql);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.__schema.types.length).toBeGreaterThan(10);
  });

  it('admits every named example operation with its default variables', async () => {
    const dashboard = await runOperation(api, 'SessionDashboard', { org: user.orgKey, workspace: 'default', limit: 50 }, user.token);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.errors).toBeUndefined();
    expect(dashboard.body.data.sessions.sessions).toHaveLength(50);
    const groups = await runOperation(api, 'SessionGroupNavigation', { org: user.orgKey, workspace: 'default' }, user.token);
    expect(groups.body.errors).toBeUndefined();
  });
});

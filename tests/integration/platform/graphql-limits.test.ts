import { getIntrospectionQuery, isNonNullType, Kind, parse, typeFromAST, type GraphQLInputType, type OperationDefinitionNode } from 'graphql';
import { config } from '../../../src/config/config';
import { checkDocumentLimits } from '../../../src/core/graphql-document-limits';
import { operationCost } from '../../../src/core/graphql-limits';
import { argsRuleErrors } from '../../../src/core/validation/arg-rules';
import { MAX_RUN_CONFIGURATION_BYTES } from '../../../src/modules/evaluations/evaluations.limits';
import { createRestRouter } from '../../../src/http/rest-routes';
import { addMember, createUser, type TestUser } from '../../factories/accounts';
import { createGroup, saveSession } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { operationDocument, operationIndex, runOperation } from '../../helpers/operations';
import { sampleValue } from '../../helpers/sample-values';
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

  it('refuses a nullable variable sent as null where a value is required at the variable, before execution (not as a cost problem)', async () => {
    const result = await refused({
      query: `query($l: Int) { workspace(${scope}) { sessions(limit: $l) { id } } }`,
      variables: { l: null },
    });
    expect(result.status).toBe(422);
    expect(result.body.errors[0].extensions).toMatchObject({ type: 'validation_error', status: 422, errors: [{ loc: ['variables', 'l'], msg: 'Input should be a valid integer, unable to parse input as an integer', type: 'int_parsing' }] });
    expect(result.statements.filter((sql) => /\bsessions\b/.test(sql))).toEqual([]);
    // Left out, the argument's default applies.
    const omitted = await gql(api, `query($l: Int) { workspace(${scope}) { sessions(limit: $l) { id } } }`, {}, user.token);
    expect(omitted.body.data.workspace.sessions).toHaveLength(20);
    // A fragment only another operation of the document spreads does not count against the one that runs.
    const document = `query A($l: Int) { sessions(${scope}, limit: $l) { total } } query B($l: Int) { workspace(${scope}) { ...S } } fragment S on WorkspaceResponse { sessions(limit: $l) { id } }`;
    const other = await rest(api, 'POST', '/graphql', { token: user.token, body: { query: document, operationName: 'A', variables: { l: null } } });
    expect([other.status, other.body.errors]).toEqual([200, undefined]);
    const used = await rest(api, 'POST', '/graphql', { token: user.token, body: { query: document, operationName: 'B', variables: { l: null } } });
    expect([used.status, used.body.errors[0].extensions.errors[0].loc]).toEqual([422, ['variables', 'l']]);
  });

  it('holds JSON written inline to the nesting depth of a variable (64 levels, input objects around it not counted): 422 at the query, before execution', async () => {
    const projects = await rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token });
    const nested = (levels: number) => `${'{a: '.repeat(levels)}1${'}'.repeat(levels)}`;
    const mutation = (metadata: string) =>
      `mutation { create_session_group(${scope}, input: { kind: workflow, project_id: "${projects.body[0].id}", metadata: ${metadata} }) { id } }`;
    // 65 levels: refused, as the same metadata in a variable (below) is.
    const deep = await refused({ query: mutation(nested(65)) });
    expect(deep.status).toBe(422);
    expect(deep.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ loc: ['body', 'query', 'input', 'metadata', ...Array(64).fill('a')], type: 'value_error' })]);
    expect(deep.statements.some((sql) => /session_groups/.test(sql))).toBe(false);
    const asVariable = await refused({
      query: `mutation($m: JSONObject) { create_session_group(${scope}, input: { kind: workflow, project_id: "${projects.body[0].id}", metadata: $m }) { id } }`,
      variables: { m: JSON.parse(nested(65).replace(/a:/g, '"a":')) },
    });
    expect(asVariable.status).toBe(422);
    expect(asVariable.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ loc: ['variables', 'm', ...Array(64).fill('a')], type: 'value_error' })]);
    const fits = await gql(api, mutation(nested(64)), {}, user.token);
    expect(fits.body.errors).toBeUndefined();
    expect(fits.body.data.create_session_group.id).toEqual(expect.any(String));
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
    expect(res.body.errors[0].extensions).toMatchObject({ status: 400, type: 'invalid_error' });
    await expectStillServing();
  });

  describe('the document size, checked before graphql-js validation', () => {
    const limits = () => ({ fields: config().GRAPHQL_MAX_FIELDS, selections: config().GRAPHQL_MAX_SELECTIONS, repeated: config().GRAPHQL_MAX_REPEATED_FIELDS });
    const repeat = (text: string, count: number) => Array.from({ length: count }, () => text).join(' ');
    /** The issue's document: one field of an object repeated about 5,000 times, 15 KB, under the token limit. */
    const REPEATED_ID = `{ api_keys { ${repeat('id', 4990)} } }`;
    const API_KEY_LEAVES = ['active', 'allowed_scopes', 'created_at', 'id', 'last_used_at', 'masked_key', 'name'];
    const SESSION_LEAVES = ['agent', 'archived_at', 'created_at', 'frozen_at', 'group_id', 'id', 'labels', 'last_message_at', 'message_count', 'model',
      'origin', 'preview_text', 'project_id', 'project_key', 'project_name', 'recent_message_count', 'runtime_id', 'shared_at', 'title', 'updated_at',
      'user_id', 'visibility', 'workspace_id'];

    it('refuses a 15 KB document repeating one field 5,000 times with 422, naming each limit it passes', async () => {
      expect(REPEATED_ID.length).toBeGreaterThan(14_000);
      const result = await refused({ query: REPEATED_ID });
      expectRefusedBeforeExecution(result, 'query_fields', new RegExp(`Field limit of ${limits().fields} fields and fragment spreads exceeded`));
      expect(result.body.errors[0].extensions.errors).toEqual(
        expect.arrayContaining([
          { loc: ['body', 'query'], msg: expect.stringMatching(`Selection set limit of ${limits().selections} fields and fragment spreads exceeded`), type: 'query_selections' },
          { loc: ['body', 'query'], msg: expect.stringMatching(`Repeated field limit of ${limits().repeated} exceeded: "id" appears more than ${limits().repeated} times`), type: 'query_repeated_fields' },
        ]),
      );
      await expectStillServing();
    });

    it('judges the size before graphql-js validation would judge the fields', async () => {
      // Unknown fields: validation would answer "Cannot query field"; the size check answers first.
      const result = await refused({ query: `{ api_keys { ${repeat('no_such_field', 4000)} } }` });
      expect(result.status).toBe(422);
      expect(result.body.errors).toHaveLength(1);
      expect(result.body.errors[0].extensions.errors.map((item: { type: string }) => item.type)).toEqual(['query_repeated_fields', 'query_selections', 'query_fields']);
    });

    it('refuses a value nested deeper than the parser can go with 422, not a 500 (under the token limit)', async () => {
      const levels = 2400;
      const result = await refused({ query: `{ sessions(${scope}, limit: 5, agent: ${'['.repeat(levels)}"a"${']'.repeat(levels)}) { total } }` });
      expectRefusedBeforeExecution(result, 'query_depth', /nests too deeply/);
      await expectStillServing();
    });

    it('answers a request without credentials with 401 before graphql-js validation', async () => {
      const res = await rest(api, 'POST', '/graphql', { body: { query: `{ api_keys { id no_such_field } }` } });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions).toMatchObject({ type: 'authentication_error', status: 401 });
      const huge = await rest(api, 'POST', '/graphql', { body: { query: REPEATED_ID } });
      expect(huge.status).toBe(401);
      // Reached through a fragment on the root type too.
      const spread = await rest(api, 'POST', '/graphql', { body: { query: `{ ...Q } fragment Q on Query { api_keys { id no_such_field } }` } });
      expect(spread.status).toBe(401);
    });

    it('refuses a fragment that doubles at every level by the fields it expands to, without expanding it', async () => {
      const levels = 40;
      const fragments = Array.from(
        { length: levels },
        (_, index) => `fragment X${index} on ApiKeyResponse { ${index + 1 < levels ? `...X${index + 1} ...X${index + 1}` : 'id'} }`,
      ).join('\n');
      const result = await refused({ query: `{ api_keys { ...X0 } }\n${fragments}` });
      expectRefusedBeforeExecution(result, 'query_fields', /Field limit of \d+ fields and fragment spreads exceeded/);
      await expectStillServing();
    });

    it('admits a selection set at the selection and repetition limits', async () => {
      const { selections, repeated } = limits();
      const names = SESSION_LEAVES.slice(0, Math.ceil(selections / repeated));
      expect(names.length * repeated).toBeGreaterThanOrEqual(selections);
      const fields = names.flatMap((name) => Array.from({ length: repeated }, () => name)).slice(0, selections);
      const res = await gql(api, `{ sessions(${scope}, limit: 2) { sessions { ${fields.join(' ')} } } }`, {}, user.token);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.sessions.sessions).toHaveLength(2);
      const over = await refused({ query: `{ sessions(${scope}, limit: 2) { sessions { ${fields.join(' ')} ${names[0]} } } }` });
      expect(over.status).toBe(422);
    });

    it('admits a document of exactly the field limit, fragments counted where spread, and refuses one more', async () => {
      const { fields, repeated } = limits();
      // A fragment of every ApiKeyResponse leaf `repeated` times, spread under aliases of api_keys(limit: 1).
      const fragment = `fragment K on ApiKeyResponse { ${API_KEY_LEAVES.map((name) => repeat(name, repeated)).join(' ')} }`;
      const perAlias = 2 + API_KEY_LEAVES.length * repeated; // the aliased field, the spread, the fragment's fields
      const aliases = Math.floor((fields - 1) / perAlias);
      const rest = fields - aliases * perAlias - 1; // the last alias and its own fields
      expect(rest).toBeLessThanOrEqual(API_KEY_LEAVES.length * repeated);
      expect(aliases + 1).toBeLessThanOrEqual(config().GRAPHQL_MAX_ALIASES);
      const last = API_KEY_LEAVES.flatMap((name) => Array.from({ length: repeated }, () => name)).slice(0, rest);
      const query = (extra: string) =>
        `{ ${Array.from({ length: aliases }, (_, index) => `k${index}: api_keys(limit: 1) { ...K }`).join(' ')} last: api_keys(limit: 1) { ${last.join(' ')} } ${extra} }\n${fragment}`;
      const admitted = await gql(api, query(''), {}, user.token);
      expect(admitted.body.errors).toBeUndefined();
      expect(Object.keys(admitted.body.data)).toHaveLength(aliases + 1);
      const over = await refused({ query: query('__typename') });
      expectRefusedBeforeExecution(over, 'query_fields', new RegExp(`Field limit of ${fields} `));
    });

    it('answers a health check sent beside three copies of the document', async () => {
      const [health, ...documents] = await Promise.all([
        rest(api, 'GET', '/api/v1/health'),
        ...Array.from({ length: 3 }, () => rest(api, 'POST', '/graphql', { token: user.token, body: { query: REPEATED_ID } })),
      ]);
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      for (const document of documents) expect(document.status).toBe(422);
    });
  });

  describe('lists priced at their worst case', () => {
    /** The issue's shape (861 bytes there): a reader lists evaluations with their skipped members, and task sets with their tasks. */
    const EVALUATIONS = `evaluations(org: $org, workspace: "default", page_size: 100) {
        items { id name skipped_members { reason task_name task_version } task_set { id name members } }
      }`;
    const TASK_SETS = `task_sets(org: $org, include_public: true, limit: 100) { task_sets { id name members tasks { id name version description tags } } }`;

    it("refuses a reader's query listing evaluations with their task sets' members and task sets with their tasks", async () => {
      const reader = await createUser();
      await addMember(user.orgKey, reader, 'reader');
      // Together, and each on its own: a list of large embedded lists is priced at every element's most.
      for (const fields of [`${EVALUATIONS} ${TASK_SETS}`, EVALUATIONS, TASK_SETS]) {
        const result = await gql(api, `query Heavy($org: String!) { ${fields} }`, { org: user.orgKey }, reader.token);
        expect(result.status).toBe(422);
        expect(result.body.errors![0].extensions).toMatchObject({ type: 'validation_error', status: 422 });
        expect(result.body.errors![0].extensions.errors).toEqual([expect.objectContaining({ type: 'query_cost' })]);
      }
    });

    it("prices an evaluation's skipped members as a list item holds them (the first 100), and whole on the roots that answer one evaluation", async () => {
      const listed = `{ evaluations(org: "${user.orgKey}", workspace: "default", page_size: 100) { items { id skipped_members { reason task_name } skipped_members_count } } }`;
      expect(operationCost(api.app.schema, parse(listed))).toBeLessThan(2_000);
      const res = await gql(api, listed, {}, user.token);
      expect(res.body.errors).toBeUndefined();
      const one = (selection: string) => operationCost(api.app.schema, parse(`{ evaluation(org: "o", workspace: "default", id: "x") { id ${selection} } }`));
      // 20,000 members at a tenth of a unit each: the list item's 100, plus the rest on the single read.
      expect(one('skipped_members { task_name }')).toBe(1 + 10 + 1_990);
      expect(one('... on EvaluationJobResponse { skipped_members { task_name } }')).toBe(1 + 10 + 1_990);
      expect(one('skipped_members_count')).toBe(1);
      // Each time it is asked for (aliases, fragments), the whole list again.
      expect(one('a: skipped_members { task_name } b: skipped_members { reason }')).toBe(1 + 2 * (10 + 1_990));
      const spread = `{ evaluation(org: "o", workspace: "default", id: "x") { ...Members ...Members } } fragment Members on EvaluationJobResponse { m: skipped_members { task_name } }`;
      expect(operationCost(api.app.schema, parse(spread))).toBeGreaterThanOrEqual(1 + 10 + 1_990);
      const thirty = `{ evaluation(org: "o", workspace: "default", id: "x") { ${Array.from({ length: 29 }, (_, index) => `m${index}: skipped_members { task_name }`).join(' ')} } }`;
      expect(operationCost(api.app.schema, parse(thirty))).toBeGreaterThan(config().GRAPHQL_MAX_COST);
      const create = `mutation($i: CreateEvaluationRequest!) { create_evaluation(org: "o", workspace: "default", input: $i) { id skipped_members { task_name } } }`;
      expect(operationCost(api.app.schema, parse(create), { i: sampleValue(api.app.schema.getType('CreateEvaluationRequest') as GraphQLInputType) })).toBe(1 + 10 + 1_990);
    });

    it('admits the same lists with the counts, and the full form on a single read', async () => {
      const lists = await gql(
        api,
        `query($org: String!) {
          evaluations(org: $org, workspace: "default", page_size: 100) { items { id skipped_members_count task_set { id member_count } } }
          task_sets(org: $org, include_public: true, limit: 100) { task_sets { id name member_count } }
        }`,
        { org: user.orgKey },
        user.token,
      );
      expect(lists.body.errors).toBeUndefined();
      // Past the budget, these reach the service (which finds nothing).
      const singles = [
        `{ task_set(org: "${user.orgKey}", name: "none") { members tasks { id } } }`,
        `{ evaluation(org: "${user.orgKey}", workspace: "default", id: "00000000-0000-4000-8000-000000000000") { skipped_members { task_name } } }`,
      ];
      for (const query of singles) {
        const single = await gql(api, query, {}, user.token);
        expect(single.body.errors![0].extensions).toMatchObject({ type: 'not_found_error' });
      }
    });

    it('keeps every named example operation within the budget and the document limits with its default variables', () => {
      const limits = { maxFields: config().GRAPHQL_MAX_FIELDS, maxSelections: config().GRAPHQL_MAX_SELECTIONS, maxRepeatedFields: config().GRAPHQL_MAX_REPEATED_FIELDS };
      const over: string[] = [];
      for (const name of operationIndex().operations.keys()) {
        const document = operationDocument(name);
        const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
        const variables: Record<string, unknown> = {};
        for (const definition of operation.variableDefinitions ?? []) {
          const type = typeFromAST(api.app.schema, definition.type as never) as GraphQLInputType;
          if (isNonNullType(type) && !definition.defaultValue) variables[definition.variable.name.value] = sampleValue(type);
        }
        checkDocumentLimits(document, limits);
        const cost = operationCost(api.app.schema, document, variables, name);
        if (cost > config().GRAPHQL_MAX_COST) over.push(`${name}: ${cost}`);
      }
      expect(over).toEqual([]);
    });
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

  it('prices `__schema` at 2,500 whatever its selection: aliases cannot multiply the introspection reply', async () => {
    const schemaOnce = (alias: string) => `${alias}: __schema { types { name fields(includeDeprecated: true) { name description } } }`;
    const four = await gql(api, `{ ${[0, 1, 2, 3].map((index) => schemaOnce(`s${index}`)).join(' ')} }`);
    expect(four.status).toBe(200);
    expect(four.body.data.s3.types.length).toBeGreaterThan(10);
    // Anonymous, as the playground's may be: refused before anything is built.
    const result = await refused({ query: `{ ${[0, 1, 2, 3, 4].map((index) => schemaOnce(`s${index}`)).join(' ')} }` });
    expectRefusedBeforeExecution(result, 'query_cost', /Query cost 12500 exceeds the limit of 10000/);
  });

  it('prices a large value (@MaxBytes) by the bytes it may hold, so that large values within the budget stay within MAX_REPLY_BYTES', async () => {
    const unit = config().MAX_REPLY_BYTES / config().GRAPHQL_MAX_COST;
    const configs = Math.ceil((64 * 1024) / unit);
    const manifest = Math.ceil((128 * 1024) / unit);
    const list = (alias: string) => `${alias}: assessments(${scope}, page_size: 100) { items { attacker_config target_config attack_manifest } }`;
    const document = (count: number) => `{ ${Array.from({ length: count }, (_, index) => list(`a${index}`)).join(' ')} }`;
    // A page of 100 assessments: 100 × (1 + two configurations + the manifest), besides the list's own cost.
    const one = operationCost(api.app.schema, parse(document(1)));
    expect(one).toBeGreaterThanOrEqual(100 * (1 + 2 * configs + manifest));
    expect(100 * (2 * 64 * 1024 + 128 * 1024)).toBeLessThanOrEqual(one * unit);
    // Two such pages could hold more than MAX_REPLY_BYTES: refused before any assessment is read.
    const result = await refused({ query: document(2) });
    expectRefusedBeforeExecution(result, 'query_cost', /Query cost \d+ exceeds the limit of 10000/);
    expect(result.statements.filter((sql) => /\bairt_assessments\b/.test(sql))).toEqual([]);
  });

  it('admits the document of every REST read at its default page, and at its largest page but for a few long pages of large values', () => {
    const { plans } = createRestRouter(api.app.schema, null as never);
    const atDefault: string[] = [];
    const atLargest: string[] = [];
    for (const plan of plans.values()) {
      if (plan.kind !== 'Query') continue;
      const variables: Record<string, unknown> = {};
      const sizes: string[] = [];
      for (const definition of plan.operation.variableDefinitions ?? []) {
        const name = definition.variable.name.value;
        const type = typeFromAST(api.app.schema, definition.type as never) as GraphQLInputType;
        if (isNonNullType(type) && !definition.defaultValue) variables[name] = sampleValue(type);
        if (name === 'limit' || name === 'page_size') sizes.push(name);
      }
      if (operationCost(api.app.schema, plan.document, variables) > config().GRAPHQL_MAX_COST) atDefault.push(plan.fieldName);
      // Each page size at the largest its route accepts (found by its own rules).
      for (const name of sizes) {
        variables[name] = [100_000, 10_000, 1_000, 500, 200, 100, 50, 20].find((size) => !argsRuleErrors('query', plan.fieldName, { [name]: size }).some((item) => item.loc[0] === name));
      }
      if (operationCost(api.app.schema, plan.document, variables) > config().GRAPHQL_MAX_COST) atLargest.push(plan.fieldName);
    }
    expect(atDefault).toEqual([]);
    // Pages whose worst case (every large value at its bound: a transcript's 1,000 messages, 100 evaluations with their run
    // configurations, 200 capabilities with their components) is priced past the budget: GraphQL asks for them in smaller pages.
    expect(atLargest.sort()).toEqual(['capabilities', 'evaluation_item_transcript', 'evaluation_trace_items', 'evaluations', 'session', 'session_transcript', 'task_sets', 'tasks']);
  });

  it("prices an evaluation's run configuration by what its inputs allow, so aliased pages of them are refused before any is read", async () => {
    const unit = config().MAX_REPLY_BYTES / config().GRAPHQL_MAX_COST;
    const page = (alias: string) => `${alias}: evaluations(${scope}, page_size: 100) { items { id config_json } }`;
    const one = operationCost(api.app.schema, parse(`{ ${page('a')} }`));
    expect(one * unit).toBeGreaterThanOrEqual(100 * MAX_RUN_CONFIGURATION_BYTES);
    const result = await refused({ query: `{ ${page('a')} ${page('b')} }` });
    expectRefusedBeforeExecution(result, 'query_cost', /Query cost \d+ exceeds the limit of 10000/);
    expect(result.statements.filter((sql) => /\bevaluations\b/.test(sql))).toEqual([]);
  });

  it('prices and serves a navigation limit past its maximum as the maximum (clamped, not refused)', async () => {
    const navigation = (limit: number) => `{ workspace(${scope}) { sessions(limit: ${limit}) { id } } }`;
    expect(operationCost(api.app.schema, parse(navigation(1_000_000)))).toBe(operationCost(api.app.schema, parse(navigation(100))));
    const res = await gql(api, navigation(1_000_000), {}, user.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.workspace.sessions).toHaveLength(100);
    const one = await gql(api, navigation(0), {}, user.token);
    expect(one.body.data.workspace.sessions).toHaveLength(1);
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

import crypto from 'node:crypto';
import { createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { MAX_VALIDATION_ITEMS } from '../../../src/core/errors';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

describe('REST layer', () => {
  it('lists the first 100 problems of a body with thousands of bad items, and stops looking at 1,000 (422, not a stalled worker)', async () => {
    const path = `/org/${user.orgKey}/ws/default/sessions/${crypto.randomUUID()}/transcript`;
    // Each empty message is missing its role (a type problem) and its content (a rule problem): 2,000 problems, of which 1,000 are looked for.
    const res = await rest(api, 'POST', path, { token: user.token, body: { messages: Array.from({ length: 1000 }, () => ({})) } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(MAX_VALIDATION_ITEMS);
    expect(res.body.detail).toBe('Request validation failed (the first 100 of 1000 or more problems)');
    expect(res.body.errors.slice(0, 2)).toEqual([
      { loc: ['body', 'messages', 0, 'role'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'messages', 1, 'role'], msg: 'Field required', type: 'missing' },
    ]);
    // Fewer than 1,000 are counted exactly.
    const some = await rest(api, 'POST', path, { token: user.token, body: { messages: Array.from({ length: 300 }, () => ({})) } });
    expect(some.body.detail).toBe('Request validation failed (the first 100 of 600 problems)');
  }, 60_000);

  it('refuses a list longer than its @ArrayMaxSize as one problem, its items unread, however many there are', async () => {
    // A million zeros (2 MB, within the 50 MiB publish limit) where at most 2,000 files go: once a million dict_type
    // problems and 785 MB; and a million empty objects, two million problems.
    for (const item of [0, {}]) {
      const res = await rest(api, 'POST', `/org/${user.orgKey}/capabilities`, {
        token: user.token,
        body: { name: 'many', version: '1.0.0', manifest: {}, files: Array.from({ length: 1_000_000 }, () => item) },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ loc: ['body', 'files'], msg: 'files must contain no more than 2000 elements', type: 'too_long' }]);
    }
    // In GraphQL variables too.
    const gql = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: { query: 'mutation($input: TaskSetRequest!) { create_task_set(org: "x", input: $input) { id } }', variables: { input: { name: 'n', members: Array.from({ length: 200_000 }, () => 0) } } },
    });
    expect(gql.status).toBe(422);
    expect(gql.body.errors[0].extensions.errors).toEqual([{ loc: ['variables', 'input', 'members'], msg: 'members must contain no more than 10000 elements', type: 'too_long' }]);
  }, 60_000);

  it('refuses a body holding more than 2^20 JSON arrays and objects unparsed, 422 json_invalid where the one past it opens', async () => {
    // 50 MiB of `{},` (a publish's limit) parsed to 1.7 GB of objects in 8 s; 3 MB is enough to pass the count.
    const prefix = '{"name": "dense", "x": [';
    const over = await rest(api, 'POST', `/org/${user.orgKey}/capabilities`, { token: user.token, rawBody: `${prefix}${'{},'.repeat(1_100_000)}{}]}` });
    expect(over.status).toBe(422);
    // The outer object and the list are two: the 1,048,575th empty object (after 1,048,574 others) is the one past 2^20.
    expect(over.body.errors).toEqual([{ loc: ['body', prefix.length + 3 * 1_048_574], msg: 'JSON holds more than 1048576 arrays and objects', type: 'json_invalid' }]);
    const within = await rest(api, 'POST', `/org/${user.orgKey}/capabilities`, { token: user.token, rawBody: `${prefix}${'{},'.repeat(1_048_573)}{}]}` });
    expect(within.status).toBe(422);
    expect(within.body.errors.map((item: { loc: string[] }) => item.loc.join('.'))).toEqual(['body.version', 'body.manifest', 'body.files']);
  }, 60_000);

  it('answers an automatic persisted query (not offered) without a server error, whatever its hash', async () => {
    for (const hash of ['a'.repeat(64), { toString: 1 }]) {
      const res = await rest(api, 'POST', '/graphql', { token: user.token, body: { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ message: 'PersistedQueryNotSupported', extensions: { status: 422 } });
    }
  });

  it('answers a malformed JSON body with 422 json_invalid', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, rawBody: '{"key": "abc",' });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(res.body.errors[0].type).toBe('json_invalid');
    expect(res.body.errors[0].loc[0]).toBe('body');
  });

  it('reports a type error and a rule error of different query parameters in one reply', async () => {
    const res = await rest(api, 'GET', `/org/${user.orgKey}/ws/default/sessions`, { token: user.token, query: { sort_by: 'bogus', limit: '101', page: '0' } });
    expect(res.status).toBe(422);
    const locs = res.body.errors.map((item: { loc: string[]; type: string }) => `${item.loc.join('.')}:${item.type}`).sort();
    expect(locs).toEqual(['query.limit:less_than_equal', 'query.page:greater_than_equal', 'query.sort_by:enum']);
  });

  it('reports a refused list element or value alone, not also a rule judged on it above its place', async () => {
    const dataset = await rest(api, 'POST', `/org/${user.orgKey}/datasets`, { token: user.token, body: { name: 'refused-tag', version: '1.0.0', tags: [null] } });
    expect(dataset.status).toBe(422);
    // The tags' `each` length rule is located at the list: judged on the null, it called it too long.
    expect(dataset.body.errors).toEqual([{ loc: ['body', 'tags', 0], msg: 'Input should be a valid string', type: 'string_type' }]);
    const path = `/org/${user.orgKey}/ws/default/sessions/${crypto.randomUUID()}/transcript`;
    const transcript = await rest(api, 'POST', path, { token: user.token, body: { messages: [{ role: 'user', content: { a: '\u0000' } }] } });
    expect(transcript.status).toBe(422);
    expect(transcript.body.errors.map((item: { loc: string[]; type: string }) => `${item.loc.join('.')}:${item.type}`)).toEqual(['body.messages.0.content.a:string_type']);
    // A list over its size is that one problem: its items are not read (the null among 101 tags is not reported).
    const many = await rest(api, 'POST', `/org/${user.orgKey}/datasets`, { token: user.token, body: { name: 'refused-tags', version: '1.0.0', tags: [null, ...Array.from({ length: 100 }, (_, index) => `t${index}`)] } });
    expect(many.body.errors.map((item: { loc: string[]; type: string }) => `${item.loc.join('.')}:${item.type}`).sort()).toEqual(['body.tags:too_long']);
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const res = await rest(api, 'GET', '/no/such/route', { token: user.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, detail: expect.any(String), errors: null, type: 'not_found_error' });
  });

  it('answers an unknown method on a known path with 405 and the methods it has', async () => {
    const res = await fetch(`${api.baseUrl}/api/v1/org/${user.orgKey}/ws`, { method: 'DELETE', headers: { authorization: `Bearer ${user.token}` } });
    expect([res.status, res.headers.get('allow'), ((await res.json()) as { type: string }).type]).toEqual([405, 'GET, HEAD, POST, OPTIONS', 'method_not_allowed_error']);
  });

  it('serves paths exactly, without trailing-slash redirects', async () => {
    const res = await rest(api, 'GET', `/org/${user.orgKey}/ws/`, { token: user.token });
    expect(res.status).toBe(404);
  });

  it('rejects a body over 1 MiB with 400 invalid_error', async () => {
    const big = JSON.stringify({ key: 'big-body', name: 'Big', description: 'x'.repeat(1024 * 1024 + 10) });
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, rawBody: big });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_error');
  });

  it('reports every validation problem at once with body locations', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, {
      token: user.token,
      body: { key: 'ab', name: 12, description: 'd'.repeat(1001) },
    });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['body.key', 'string_too_short'],
        ['body.name', 'string_type'],
        ['body.description', 'string_too_long'],
      ]),
    );
  });

  it('reports a missing required body field as missing', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, body: { name: 'No key' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['body', 'key'], msg: 'Field required', type: 'missing' }]);
  });

  it('rejects a body that is not an object with dict_type', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, body: ['a'] });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ loc: ['body'], type: 'dict_type' });
  });

  it('ignores unknown body keys on non-strict inputs', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, {
      token: user.token,
      body: { key: 'extra-keys', name: 'Extra', unknown_field: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toBe('extra-keys');
  });

  it('echoes X-Request-Id, or makes one up', async () => {
    const echoed = await rest(api, 'GET', '/health', { headers: { 'x-request-id': 'req-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('req-123');
    const made = await rest(api, 'GET', '/no/such/route');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 401 before judging a malformed JSON body', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { rawBody: '{"key": ' });
    expect(res.status).toBe(401);
  });

  it('refuses NUL characters in strings with 422 instead of failing in the database', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, body: { key: 'nul-name', name: 'bad\u0000name' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_type' })]);
  });

  it('answers a caller without a credential 401 before reading the body, even a 20 MB publish or one that is not JSON', async () => {
    const big = await fetch(`${api.baseUrl}/api/v1/org/${user.orgKey}/capabilities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"name":"x","files":[{"path":"a","content_base64":"${'A'.repeat(20 * 1024 * 1024)}"}]}` });
    expect(big.status).toBe(401);
    const malformed = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { rawBody: '{"key": ' });
    expect(malformed.status).toBe(401);
    // With the credential, the same body is judged: 422 json_invalid.
    const judged = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, rawBody: '{"key": ' });
    expect(judged.status).toBe(422);
    expect(judged.body.errors[0]).toMatchObject({ loc: expect.arrayContaining(['body']), type: 'json_invalid' });
  });

  it('refuses NUL characters written inline in a GraphQL document with 422 at the query, as in variables', async () => {
    // "\\u0000" in the document's text: the GraphQL string escape, which graphql-js parses into a NUL character.
    const inline = String.raw`mutation { create_workspace(org: "ORG", input: { key: "nul-inline", name: "bad\u0000name" }) { id } }`.replace('ORG', user.orgKey);
    const res = await rest(api, 'POST', '/graphql', { token: user.token, body: { query: inline } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].extensions).toMatchObject({ status: 422, type: 'validation_error', errors: [expect.objectContaining({ loc: ['body', 'query', 'input', 'name'], type: 'string_type' })] });
    const search = String.raw`query { sessions(org: "ORG", workspace: "default", search: "x\u0000y") { total } }`.replace('ORG', user.orgKey);
    expect((await rest(api, 'POST', '/graphql', { token: user.token, body: { query: search } })).status).toBe(422);
  });

  it('refuses a number written inline that is too large for a double (graphql-js would pass Infinity on), as in variables', async () => {
    const query = (value: string) => `query { project_findings(org: "${user.orgKey}", workspace: "default", project: "default", min_score: ${value}) { total } }`;
    for (const value of ['1e400', '-1e400', '1'.repeat(400)]) {
      const res = await rest(api, 'POST', '/graphql', { token: user.token, body: { query: query(value) } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].extensions.errors).toEqual([{ loc: ['body', 'query', 'min_score'], msg: 'Input should be a valid number', type: 'float_parsing' }]);
    }
    const variable = await rest(api, 'POST', '/graphql', { token: user.token, rawBody: `{"query": ${JSON.stringify(query('$s').replace('query {', 'query($s: Float) {'))}, "variables": {"s": 1e400}}` });
    expect(variable.status).toBe(422);
    expect(variable.body.errors[0].extensions.errors[0]).toMatchObject({ loc: ['variables', 's'], type: 'float_parsing' });
    expect((await rest(api, 'POST', '/graphql', { token: user.token, body: { query: query('1e300') } })).body.data.project_findings.total).toBe(0);
  });

  it('accepts a query string of 1000 UUIDs (large request head) and answers oversized heads with the envelope', async () => {
    const ids = Array.from({ length: 1000 }, () => crypto.randomUUID());
    const res = await rest(api, 'GET', `/org/${user.orgKey}/ws/default/sessions/facets`, { token: user.token, query: { project_id: ids } });
    expect(res.status).toBe(200);
    const huge = await rest(api, 'GET', '/health', { headers: { 'x-filler': 'x'.repeat(300 * 1024) } });
    expect(huge.status).toBe(400);
    expect(huge.body).toMatchObject({ code: 400, type: 'invalid_error' });
  });

  it('answers 401 before validating the body', async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/ws`, { body: { key: 1 } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
  });
});

describe('GraphQL input checks', () => {
  it('reports every bad variable at once with its exact location', async () => {
    const res = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: {
        query: 'mutation($org: String!, $input: CreateWorkspaceInput!) { create_workspace(org: $org, input: $input) { key } }',
        variables: { org: user.orgKey, input: { key: 5, name: null } },
      },
    });
    expect(res.status).toBe(422);
    const error = res.body.errors[0];
    expect(error.extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(error.extensions.errors).toEqual([
      { loc: ['variables', 'input', 'key'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['variables', 'input', 'name'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('refuses a field an input type does not have, at its place in the variables (GraphQL refuses it; never taken for a cost)', async () => {
    const res = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: {
        query: 'mutation($org: String!, $input: CreateWorkspaceInput!) { create_workspace(org: $org, input: $input) { key } }',
        variables: { org: user.orgKey, input: { key: 'extra-field', name: 'Extra', zzz: 1 } },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].extensions.errors).toEqual([{ loc: ['variables', 'input', 'zzz'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
    // Nothing was created.
    expect((await rest(api, 'GET', `/org/${user.orgKey}/ws/extra-field`, { token: user.token })).status).toBe(404);
  });

  it('judges values written in the query as variables are judged: every problem, its argument and its type', async () => {
    const where = `org: "${user.orgKey}", workspace: "default"`;
    const res = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: { query: `{ session_group(${where}, group_id: "nope") { id } sessions(${where}, limit: 1.5, sort_by: nope) { total } }` },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(res.body.errors[0].extensions.errors).toEqual([
      { loc: ['body', 'query', 'group_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
      { loc: ['body', 'query', 'limit'], msg: 'Input should be a valid integer', type: 'int_from_float' },
      { loc: ['body', 'query', 'sort_by'], msg: expect.any(String), type: 'enum' },
    ]);
    // As a variable, the same value is the same problem at its variable.
    const variable = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: { query: `query($g: UUID!) { session_group(${where}, group_id: $g) { id } }`, variables: { g: 'nope' } },
    });
    expect(variable.body.errors[0].extensions.errors).toEqual([{ loc: ['variables', 'g'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
    // A variable's default is a value written in the query too.
    const defaulted = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: { query: `query($g: UUID = "nope") { session_group(${where}, group_id: $g) { id } }` },
    });
    expect(defaulted.status).toBe(422);
    expect(defaulted.body.errors[0].extensions.errors).toEqual([{ loc: ['body', 'query', '$g'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
    // A value with a variable inside is judged with the variables, not taken for a missing field.
    const mixed = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: { query: 'mutation($org: String!, $key: String!) { create_workspace(org: $org, input: { key: $key, name: "Mixed" }) { key } }', variables: { org: user.orgKey, key: 'mixed-literal' } },
    });
    expect(mixed.body.errors).toBeUndefined();
    expect(mixed.body.data.create_workspace.key).toBe('mixed-literal');
    // Without a credential the answer is 401 first, as for variables.
    const anonymous = await rest(api, 'POST', '/graphql', { body: { query: `{ session_group(${where}, group_id: "nope") { id } }` } });
    expect(anonymous.status).toBe(401);
  });

  it('reports the error of every failing root field, in the order they were asked for, every time (a non-null root failing ends the execution)', async () => {
    const outsider = await createUser();
    const where = `org: "${user.orgKey}", workspace: "default"`;
    // `sessions` is a non-null root: its failure nulls `data`; the others are nullable, `l2` another non-null one.
    const query = `{ w: workspace(${where}) { id } l: sessions(${where}) { total } s: session(${where}, session_id: "abcd1234") { id } l2: sessions(${where}) { total } }`;
    for (let round = 0; round < 8; round += 1) {
      const res = await rest(api, 'POST', '/graphql', { token: outsider.token, body: { query } });
      expect(res.body.data).toBeNull();
      expect(res.body.errors.map((error: any) => [error.path, error.extensions.status])).toEqual([
        [['w'], 404],
        [['l'], 404],
        [['s'], 404],
        [['l2'], 404],
      ]);
    }
  });

  it('reports rule violations of an input argument at its argument path', async () => {
    const res = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: {
        query: 'mutation($org: String!, $input: CreateWorkspaceInput!) { create_workspace(org: $org, input: $input) { key } }',
        variables: { org: user.orgKey, input: { key: 'Not A Slug', name: 'ok name' } },
      },
    });
    expect(res.body.errors[0].extensions.type).toBe('validation_error');
    expect(res.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ loc: ['input', 'key'], type: 'string_pattern_mismatch' })]);
  });
});

describe('GraphQL order of checks', () => {
  it('answers 401 before judging the variables of a non-public operation', async () => {
    const res = await rest(api, 'POST', '/graphql', {
      body: {
        query: 'mutation($org: String!, $input: CreateWorkspaceInput!) { create_workspace(org: $org, input: $input) { key } }',
        variables: { org: 'x', input: { key: 5 } },
      },
    });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions).toMatchObject({ type: 'authentication_error', status: 401 });
  });
});

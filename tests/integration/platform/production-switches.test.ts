import { overrideConfig } from '../../../src/config/config';
import { createUser, type TestUser } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * The production posture (each switch's default in production, set here
 * before the app starts): no introspection, no field suggestions in
 * validation errors, no playground, no docs page.
 */
overrideConfig({ GRAPHQL_INTROSPECTION: false, GRAPHQL_FIELD_SUGGESTIONS: false, GRAPHQL_PLAYGROUND: false, API_DOCS: false });
const api = useTestApp();
let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

it('refuses introspection', async () => {
  const reply = await gql(api, '{ __schema { types { name } } }', {}, owner.token);
  expect(reply.body.data).toBeUndefined();
  expect(reply.body.errors![0].message).toMatch(/introspection/i);
  // __typename is not introspection.
  expect((await gql(api, '{ __typename }', {}, owner.token)).body).toEqual({ data: { __typename: 'Query' } });
});

it('names no field the caller did not write', async () => {
  const reply = await gql(api, '{ usr { id } }', {}, owner.token);
  expect(reply.body.errors![0].message).toBe('Cannot query field "usr" on type "Query".');
});

it('serves neither the playground nor the docs page, nor their assets, nor says they exist (OPTIONS, 405)', async () => {
  expect((await rest(api, 'GET', '/api/docs')).status).toBe(404);
  for (const path of ['/api/docs', '/api/docs/assets/swagger-ui.css', '/graphql/assets/graphiql.min.js']) {
    expect([path, (await fetch(`${api.baseUrl}${path}`)).status]).toEqual([path, 404]);
    expect([path, (await fetch(`${api.baseUrl}${path}`, { method: 'POST' })).status]).toEqual([path, 404]);
    const options = await fetch(`${api.baseUrl}${path}`, { method: 'OPTIONS' });
    expect([path, options.status, options.headers.get('allow')]).toEqual([path, 404, null]);
  }
  // A browser's GET is then a GraphQL request without CSRF's preflight header: refused (422, as every GraphQL refusal).
  const playground = await fetch(`${api.baseUrl}/graphql`, { headers: { Accept: 'text/html' } });
  expect(playground.status).toBe(422);
});

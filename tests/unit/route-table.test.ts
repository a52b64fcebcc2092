import { RouteTable } from '../../src/http/route-table';

describe('the route matcher', () => {
  const table = new RouteTable<string>()
    .add('GET', '/org/:org/ws/:workspace/sessions/facets', 'facets')
    .add('GET', '/org/:org/ws/:workspace/sessions/:session_id', 'session')
    .add('GET', '/org/:org/capabilities/:name', 'capability')
    .add('GET', '/graphql/assets/*', 'asset');

  it('takes the first matching route, so literal segments listed first win over parameters', () => {
    expect(table.match('GET', '/org/acme/ws/main/sessions/facets')).toEqual({
      route: 'facets',
      params: { org: 'acme', workspace: 'main' },
    });
    expect(table.match('GET', '/org/acme/ws/main/sessions/abcd')?.route).toBe('session');
  });

  it('keeps an encoded slash inside one path parameter', () => {
    expect(table.match('GET', '/org/acme/capabilities/owner%2Fname')).toEqual({ route: 'capability', params: { org: 'acme', name: 'owner/name' } });
    expect(table.match('GET', '/org/acme/capabilities/owner/name')).toBeNull();
  });

  it('matches prefixes and hands the rest of the path on', () => {
    expect(table.match('GET', '/graphql/assets/graphiql.min.css')).toEqual({ route: 'asset', params: { '*': 'graphiql.min.css' } });
    expect(table.match('GET', '/graphql/assets')).toBeNull();
  });

  it('matches neither another method nor an empty parameter', () => {
    expect(table.match('POST', '/org/acme/ws/main/sessions/facets')).toBeNull();
    expect(table.match('GET', '/org//ws/main/sessions/facets')).toBeNull();
  });
});

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

  it('keeps the order routes were added in between prefix and exact routes of any length', () => {
    const prefixFirst = new RouteTable<string>().add('GET', '/files/*', 'prefix').add('GET', '/files/:name', 'exact').add('GET', '/files/a/b', 'deep');
    expect(prefixFirst.match('GET', '/files/x')?.route).toBe('prefix');
    expect(prefixFirst.match('GET', '/files/a/b')?.route).toBe('prefix');
    const exactFirst = new RouteTable<string>().add('GET', '/files/:name', 'exact').add('GET', '/files/*', 'prefix').add('GET', '/files/a/b', 'deep');
    expect(exactFirst.match('GET', '/files/x')).toEqual({ route: 'exact', params: { name: 'x' } });
    expect(exactFirst.match('GET', '/files/a/b')).toEqual({ route: 'prefix', params: { '*': 'a/b' } });
    expect(exactFirst.match('DELETE', '/files/x')).toBeNull();
  });

  it('finds each of many routes of the same length and method, by its literal segments', () => {
    const many = new RouteTable<number>();
    for (let index = 0; index < 50; index += 1) many.add('GET', `/org/:org/r${index}/:id`, index);
    for (let index = 0; index < 50; index += 1) expect(many.match('GET', `/org/acme/r${index}/7`)).toEqual({ route: index, params: { org: 'acme', id: '7' } });
    expect(many.match('GET', '/org/acme/r50/7')).toBeNull();
  });
});

import { database } from '../../../src/db/database';
import { createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useIsolatedTestApp } from '../../helpers/isolated-database';

// This file breaks its own database on purpose, so it does not share one.
const api = useIsolatedTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

describe('unexpected failures', () => {
  it('masks a database failure as 500 server_error without SQL or a stack', async () => {
    await database().query('ALTER TABLE projects RENAME TO projects_moved');
    try {
      const res = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 500, detail: 'Internal server error', errors: null, type: 'server_error' });
      expect(res.text).not.toMatch(/projects|SELECT|relation|at \w+ \(/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    } finally {
      await database().query('ALTER TABLE projects_moved RENAME TO projects');
    }
  });

  it('masks the same failure in GraphQL responses', async () => {
    await database().query('ALTER TABLE projects RENAME TO projects_moved');
    try {
      const res = await rest(api, 'POST', '/graphql', {
        token: user.token,
        body: { query: `{ workspaces(org: "${user.orgKey}") { workspaces { key project_count } } }` },
      });
      const error = res.body.errors[0];
      expect(error.message).toBe('Internal server error');
      expect(error.extensions).toMatchObject({ type: 'server_error', status: 500 });
      expect(JSON.stringify(res.body)).not.toMatch(/projects_moved|SELECT|stacktrace/);
    } finally {
      await database().query('ALTER TABLE projects_moved RENAME TO projects');
    }
  });

  it('reports not ready (503) once the database is gone, while liveness stays 200', async () => {
    await api.dropDatabase!();
    const ready = await rest(api, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    const live = await rest(api, 'GET', '/health');
    expect(live.status).toBe(200);
  });
});

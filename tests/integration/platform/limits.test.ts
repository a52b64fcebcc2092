import { overrideConfig } from '../../../src/config/config';
import { createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useIsolatedTestApp } from '../../helpers/isolated-database';

// Counters live in PostgreSQL; an isolated database keeps them apart from other files.
const api = useIsolatedTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a credential spends its quota, and counts credentials apart', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 3, AUTH_RATE_LIMIT_PER_MINUTE: 0 });
    const other = await createUser();
    const statuses: number[] = [];
    const remaining: (string | null)[] = [];
    for (let index = 0; index < 4; index += 1) {
      const res = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining'));
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(remaining).toEqual(['2', '1', '0', '0']);
    const limited = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expect(limited.body).toMatchObject({ code: 429, type: 'usage_limit_exceeded_error' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refusal says which quota it is, as the replies within it do.
    expect([limited.headers.get('x-ratelimit-limit'), limited.headers.get('x-ratelimit-remaining')]).toEqual(['3', '0']);
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws`, { token: other.token })).status).toBe(200);
  });

  it('limits the account operations per IP more strictly, over REST and GraphQL alike', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 0, AUTH_RATE_LIMIT_PER_MINUTE: 3 });
    const attempt = () => rest(api, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(401);
    const viaGraphql = await rest(api, 'POST', '/graphql', {
      body: { query: 'mutation($input: LoginInput!) { login(input: $input) { access_token } }', variables: { input: { email: user.email, password: 'wrong-password' } } },
    });
    expect(viaGraphql.body.errors[0].extensions.type).toBe('authentication_error');
    const fourth = await attempt();
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toBeTruthy();
    const graphqlLimited = await rest(api, 'POST', '/graphql', {
      body: { query: 'mutation($input: LoginInput!) { login(input: $input) { access_token } }', variables: { input: { email: user.email, password: 'x-password' } } },
    });
    expect(graphqlLimited.body.errors[0].extensions).toMatchObject({ type: 'usage_limit_exceeded_error', status: 429 });
    // Nothing else of the request was done: the reply is the quota's, as on REST, and says when to come back.
    expect(graphqlLimited.status).toBe(429);
    expect(Number(graphqlLimited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect([graphqlLimited.headers.get('x-ratelimit-limit'), graphqlLimited.headers.get('x-ratelimit-remaining')]).toEqual(['3', '0']);
    // Beside a field that answered, the reply stays 200 (a retry of the whole would repeat that field) and still says when.
    const beside = await rest(api, 'POST', '/graphql', {
      token: user.token,
      body: { query: 'mutation($org: String!, $ws: CreateWorkspaceInput!, $input: LoginInput!) { create_workspace(org: $org, input: $ws) { key } login(input: $input) { access_token } }', variables: { input: { email: user.email, password: 'x-password' }, org: user.orgKey, ws: { key: `quota-${Date.now()}`, name: 'Quota beside' } } },
    });
    expect(beside.status).toBe(200);
    expect(beside.body.errors[0].extensions.status).toBe(429);
    // Done before the login was refused (its non-null null nulls `data`): the workspace is there.
    expect((await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token })).body.workspaces.map((ws: { name: string }) => ws.name)).toContain('Quota beside');
    expect(Number(beside.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token })).status).toBe(200);
  });

  it("refuses a GraphQL request it cannot run (a bad credential, the quota spent) in GraphQL's own reply, with the same status and headers", async () => {
    // A client address of its own (behind a trusted proxy), so the bad credential spends no other test's quota.
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 1, AUTH_RATE_LIMIT_PER_MINUTE: 0, TRUST_PROXY: true });
    try {
      const other = await createUser();
      const ask = (token: string) => rest(api, 'POST', '/graphql', { token, body: { query: '{ user { id } }' }, headers: { 'x-forwarded-for': '192.0.2.41' } });
      const unknown = await ask('not-a-token');
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'TOKEN_ERROR', status: 401, type: 'token_error' } }] });
      expect(unknown.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // In the media type Apollo answers with, GraphQL over HTTP's own when the client prefers it.
      const preferring = await rest(api, 'POST', '/graphql', {
        token: 'not-a-token',
        body: { query: '{ user { id } }' },
        headers: { 'x-forwarded-for': '192.0.2.42', accept: 'application/graphql-response+json, application/json;q=0.9' },
      });
      expect([preferring.status, preferring.headers.get('content-type')]).toEqual([401, 'application/graphql-response+json; charset=utf-8']);
      expect((await ask(other.token)).status).toBe(200);
      const limited = await ask(other.token);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'USAGE_LIMIT_EXCEEDED_ERROR', status: 429, type: 'usage_limit_exceeded_error' } }] });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect([limited.headers.get('x-ratelimit-limit'), limited.headers.get('x-ratelimit-remaining')]).toEqual(['1', '0']);
    } finally {
      overrideConfig({ TRUST_PROXY: false });
    }
  });

  it('counts made-up credentials against the client address, not a fresh bucket each', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 2, AUTH_RATE_LIMIT_PER_MINUTE: 0 });
    const statuses: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      statuses.push((await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: `made-up-${index}` })).status);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy, from the hop the proxy added', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 1, AUTH_RATE_LIMIT_PER_MINUTE: 0, TRUST_PROXY: true });
    const via = (forwarded: string) => rest(api, 'GET', '/org/x/ws', { headers: { 'x-forwarded-for': forwarded } });
    expect((await via('198.51.100.7')).status).toBe(401);
    // The client sent hops of its own; the proxy appended the address it saw, which is the bucket.
    expect((await via('203.0.113.1, 198.51.100.7')).status).toBe(429);
    expect((await via('198.51.100.8')).status).toBe(401);
    // A last hop that is no address (a 300-character one included) counts as the socket's address: two of them share its bucket.
    const first = await via(`198.51.100.9, ${'x'.repeat(300)}`);
    expect([401, 429]).toContain(first.status);
    expect((await via('198.51.100.10, not-an-address')).status).toBe(429);
    overrideConfig({ TRUST_PROXY: false });
  });

  it('answers 426 upgrade_required_error to clients older than MIN_CLIENT_VERSION', async () => {
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 0, AUTH_RATE_LIMIT_PER_MINUTE: 0, MIN_CLIENT_VERSION: '2.0.0' });
    const old = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, headers: { 'x-client-version': '1.9.3' } });
    expect(old.status).toBe(426);
    expect(old.body.type).toBe('upgrade_required_error');
    const current = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, headers: { 'x-client-version': '2.1.0' } });
    expect(current.status).toBe(200);
    const none = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expect(none.status).toBe(200);
    // On /graphql in GraphQL's own reply.
    const viaGraphql = await rest(api, 'POST', '/graphql', { token: user.token, body: { query: '{ user { id } }' }, headers: { 'x-client-version': '1.9.3' } });
    expect([viaGraphql.status, viaGraphql.body.errors[0].extensions]).toEqual([426, { code: 'UPGRADE_REQUIRED_ERROR', status: 426, type: 'upgrade_required_error' }]);
    overrideConfig({ MIN_CLIENT_VERSION: undefined });
  });
});

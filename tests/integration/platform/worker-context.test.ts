import { createUser, type TestUser } from '../../factories/accounts';
import { createApiKey, type TestApiKey } from '../../factories/api-keys';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * A CLI or a worker builds its context with createContext alone, without the
 * HTTP app: credentials must authenticate exactly as on the HTTP path, with no
 * side-effect import switching API keys on. The context factory is loaded in
 * an isolated module registry that never sees src/app or any resolver file
 * the test itself imports.
 */
const api = useTestApp();
let user: TestUser;
let key: TestApiKey;

type ContextModule = typeof import('../../../src/context/context');
type DatabaseModule = typeof import('../../../src/db/database');
type ModulesModule = typeof import('../../../src/modules');

function isolated(): { context: ContextModule; db: DatabaseModule; modules: ModulesModule } {
  let loaded: { context: ContextModule; db: DatabaseModule; modules: ModulesModule } | undefined;
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports -- fresh copies of the modules, as a worker loads them */
    loaded = {
      context: require('../../../src/context/context'),
      db: require('../../../src/db/database'),
      modules: require('../../../src/modules'),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  return loaded!;
}

function headers(values: Record<string, string>) {
  return { get: (name: string) => values[name.toLowerCase()] ?? null };
}

beforeAll(async () => {
  user = await createUser();
  key = await createApiKey(api, user, { name: 'worker' });
});

describe('contexts made outside HTTP', () => {
  const { context, db, modules } = isolated();

  beforeAll(() => {
    db.connectDatabase(process.env.DATABASE_URL!, { poolMax: 2, models: modules.platform.models });
  });
  afterAll(async () => {
    await db.closeDatabase();
  });

  it('authenticates an API key in a worker context exactly as the HTTP path does', async () => {
    const ctx = await context.createContext({ headers: headers({ 'x-api-key': key.key }), ip: 'worker' });
    expect(ctx.authFailure).toBeNull();
    expect(ctx.viewer?.user.id).toBe(user.id);
    expect(ctx.viewer?.apiKey?.id).toBe(key.id);
    const http = await rest(api, 'GET', '/user', { headers: { 'x-api-key': key.key } });
    expect(http.status).toBe(200);
    expect(http.body.id).toBe(ctx.viewer?.user.id);
  });

  it('authenticates a bearer JWT in a worker context', async () => {
    const ctx = await context.createContext({ headers: headers({ authorization: `Bearer ${user.token}` }), ip: 'worker' });
    expect(ctx.viewer?.user.id).toBe(user.id);
    expect(ctx.viewer?.apiKey).toBeNull();
  });

  it('refuses a revoked API key in a worker context with token_error, like HTTP', async () => {
    const revoked = await createApiKey(api, user, { name: 'revoked' });
    expect((await rest(api, 'DELETE', `/user/api-keys/${revoked.id}`, { token: user.token })).status).toBe(200);
    const ctx = await context.createContext({ headers: headers({ 'x-api-key': revoked.key }), ip: 'worker' });
    expect(ctx.viewer).toBeNull();
    expect(ctx.authFailure).toMatchObject({ status: 401, type: 'token_error' });
    const http = await rest(api, 'GET', '/user', { headers: { 'x-api-key': revoked.key } });
    expect(http.status).toBe(401);
    expect(http.body.type).toBe('token_error');
  });

  it('refuses a credential no module recognises with 401 token_error', async () => {
    const ctx = await context.createContext({ headers: headers({ 'x-api-key': 'not-a-credential' }), ip: 'worker' });
    expect(ctx.viewer).toBeNull();
    expect(ctx.authFailure).toMatchObject({ status: 401, type: 'token_error' });
  });

  it('builds the per-request loaders of every module from the registry', async () => {
    const ctx = await context.createContext({ headers: headers({ 'x-api-key': key.key }), ip: 'worker' });
    // Made on first use (each module's on the first access to one of them).
    for (const name of ['userById', 'sessionStats', 'sessionGroupById', 'projectResourceCounts']) {
      expect([name, typeof (ctx.loaders as unknown as Record<string, { load?: unknown }>)[name]?.load]).toEqual([name, 'function']);
    }
  });
});

import { ApiKeyModel, UserModel } from '../../../models';
import { config, loadConfig, overrideConfig } from '../../../src/config/config';
import { QueryTypes } from 'sequelize';
import { database } from '../../../src/db/database';
import { createUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { rest, type HttpResult } from '../../helpers/http';
import { untilBlocked } from '../../helpers/locks';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
const CAP = 3;
let previous: ReturnType<typeof config>;

beforeAll(() => {
  previous = config();
  overrideConfig({ MAX_ACTIVE_API_KEYS: CAP });
});

afterAll(() => {
  overrideConfig(previous);
});

describe('active API keys per user (MAX_ACTIVE_API_KEYS)', () => {
  it('defaults to 50', () => {
    expect(loadConfig({}).MAX_ACTIVE_API_KEYS).toBe(50);
  });

  it('refuses a key past the cap with 409 conflict_error, and allows one again once a key is revoked', async () => {
    const user = await createUser();
    const keys = [];
    for (let index = 0; index < CAP; index += 1) keys.push(await createApiKey(api, user));
    const refused = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'one too many' } });
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('conflict_error');
    expect(await ApiKeyModel.count({ where: { user_id: user.id } })).toBe(CAP);
    expect((await rest(api, 'DELETE', `/user/api-keys/${keys[0].id}`, { token: user.token })).status).toBe(200);
    expect((await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'replacement' } })).status).toBe(201);
  });

  it('counts each user apart', async () => {
    const [user, other] = await Promise.all([createUser(), createUser()]);
    for (let index = 0; index < CAP; index += 1) await createApiKey(api, user);
    expect((await rest(api, 'POST', '/user/api-keys', { token: other.token, body: {} })).status).toBe(201);
  });

  it('lets exactly one of concurrent creations at the boundary through', async () => {
    const user = await createUser();
    for (let index = 0; index < CAP - 1; index += 1) await createApiKey(api, user);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, index) => rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: `race ${index}` } })),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(await ApiKeyModel.count({ where: { user_id: user.id, revoked_at: null } })).toBe(CAP);
  });

  it.each(['access token', 'API key'])(
    'refuses a key to a caller whose %s a password reset invalidated while the creation waited (401 token_error)',
    async (credential) => {
      const user = await createUser();
      const auth = credential === 'API key' ? { headers: { 'x-api-key': (await createApiKey(api, user)).key } } : { token: user.token };
      // What a reset does, left uncommitted: the request authenticates against the old row, then waits for this lock.
      const reset = await database().transaction();
      let reply: HttpResult;
      try {
        await UserModel.update({ token_version: database().literal('token_version + 1') }, { where: { id: user.id }, transaction: reset });
        await ApiKeyModel.update({ revoked_at: new Date() }, { where: { user_id: user.id, revoked_at: null }, transaction: reset });
        const pending = rest(api, 'POST', '/user/api-keys', { ...auth, body: { name: 'late' } });
        // The creation has reached the reset's lock.
        await untilBlocked((sql) => database().query(sql, { transaction: reset, type: QueryTypes.SELECT }), 'the key creation for the reset');
        await reset.commit();
        reply = await pending;
      } catch (error) {
        await reset.rollback().catch(() => undefined);
        throw error;
      }
      expect(reply.status).toBe(401);
      expect(reply.body.type).toBe('token_error');
      expect(await ApiKeyModel.count({ where: { user_id: user.id, revoked_at: null } })).toBe(0);
    },
  );
});

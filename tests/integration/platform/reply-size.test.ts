import { config, overrideConfig } from '../../../src/config/config';
import { createUser, type TestUser } from '../../factories/accounts';
import { saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * MAX_REPLY_BYTES bounds every reply, REST or GraphQL: one that would pass it
 * answers 422 validation_error (`reply_too_large`) instead, and a streamed
 * list that passes it after its head went out is cut (tests/unit/send-json-array.test.ts).
 * The bound is lowered here to a few replies' size.
 */
const api = useTestApp();
let user: TestUser;
const original = config().MAX_REPLY_BYTES;

beforeAll(async () => {
  user = await createUser();
  for (let index = 0; index < 20; index += 1) await saveSession(api, user, { title: `session ${index} ${'x'.repeat(100)}`, visibility: 'workspace' });
});

afterEach(() => overrideConfig({ MAX_REPLY_BYTES: original }));

/** The reply's size under the default bound, then the same request with the bound one byte below and at it. */
async function atTheBound(send: () => Promise<{ status: number; text: string; body: any }>): Promise<{ over: { status: number; body: any }; size: number }> {
  const whole = await send();
  expect(whole.status).toBe(200);
  const size = Buffer.byteLength(whole.text);
  overrideConfig({ MAX_REPLY_BYTES: size });
  const at = await send();
  expect([at.status, at.text]).toEqual([200, whole.text]);
  overrideConfig({ MAX_REPLY_BYTES: size - 1 });
  return { over: await send(), size };
}

describe('the reply size bound', () => {
  it('answers a REST reply over MAX_REPLY_BYTES with 422 reply_too_large at the query, and one at the bound in full', async () => {
    const { over, size } = await atTheBound(() => rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { limit: 20 } }));
    expect(over.status).toBe(422);
    expect(over.body).toEqual({
      code: 422,
      type: 'validation_error',
      detail: expect.stringContaining('narrow the query'),
      errors: [{ loc: ['query'], msg: `The reply would be ${size} bytes, over the limit of ${size - 1}; narrow the query (a smaller limit or page, fewer fields)`, type: 'reply_too_large' }],
    });
  });

  it('answers a GraphQL reply over the bound with 422 in its errors, whether resolvers or PostgreSQL built it', async () => {
    const executed = `{ sessions(org: "${user.orgKey}", workspace: "default", limit: 20) { sessions { id title } } }`;
    const compiled = `{ workspace(org: "${user.orgKey}", workspace: "default") { sessions(limit: 20) { id title } } }`;
    for (const query of [executed, compiled]) {
      overrideConfig({ MAX_REPLY_BYTES: original });
      const { over, size } = await atTheBound(() => gql(api, query, {}, user.token) as never);
      expect(over.status).toBe(422);
      expect(over.body.data).toBeUndefined();
      expect(over.body.errors).toEqual([
        {
          message: expect.stringContaining(`The reply would be ${size} bytes`),
          extensions: {
            code: 'VALIDATION_ERROR',
            type: 'validation_error',
            status: 422,
            errors: [{ loc: ['body', 'query'], msg: expect.stringContaining(`over the limit of ${size - 1}`), type: 'reply_too_large' }],
          },
        },
      ]);
    }
  });

  it('refuses a streamed attack list over the bound with the envelope while nothing was written', async () => {
    const base = `/org/${user.orgKey}/ws/default/airt/assessments`;
    const assessment = await rest(api, 'POST', base, { token: user.token, body: { name: 'Streamed' } });
    expect(assessment.status).toBe(201);
    const attacks = Array.from({ length: 20 }, (_, index) => ({ attack_name: `attack-${index}`, goal: 'leak the system prompt', goal_category: 'prompt_leak' }));
    expect((await rest(api, 'POST', `${base}/${assessment.body.id}/traces/attacks`, { token: user.token, body: { attacks } })).status).toBe(201);
    const path = `${base}/${assessment.body.id}/traces/attacks`;
    expect((await rest(api, 'GET', path, { token: user.token })).body).toHaveLength(20);
    overrideConfig({ MAX_REPLY_BYTES: 1024 });
    const over = await rest(api, 'GET', path, { token: user.token });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([expect.objectContaining({ loc: ['query'], type: 'reply_too_large', msg: expect.stringMatching(/^The reply would be \d+ bytes, over the limit of 1024;/) })]);
  });

  it('never refuses an error reply, however low the bound', async () => {
    overrideConfig({ MAX_REPLY_BYTES: 1 });
    const missing = await rest(api, 'GET', `/org/${user.orgKey}/ws/nope/sessions`, { token: user.token });
    expect(missing.status).toBe(404);
    const small = await gql(api, '{ __typename }', {}, user.token);
    expect(small.status).toBe(422);
    expect(small.body.errors![0].extensions.errors[0].type).toBe('reply_too_large');
  });
});

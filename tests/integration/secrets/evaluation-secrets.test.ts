import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { database } from '../../../src/db/database';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { createEvaluation, evaluationsPath } from '../../factories/evaluations';
import { createSecret } from '../../factories/secrets';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/** Evaluation `secret_ids` (decisions §14): each the caller's own secret, recorded by id, never by value. */
const api = useTestApp();
let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;

const DATASET = [{ prompt: 'a' }];
const evaluationPath = () => `${evaluationsPath(org)}/evaluation`;

beforeAll(async () => {
  ({ owner, contributor, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
});

async function evaluationCount(): Promise<number> {
  const [row] = await database().query<{ count: number }>('SELECT count(*)::int AS count FROM evaluations e JOIN organizations o ON o.id = e.organization_id WHERE o.key = $org', {
    bind: { org },
    type: QueryTypes.SELECT,
  });
  return row.count;
}

describe('evaluation secret_ids', () => {
  it("records the caller's secret ids (once each, in order) in config_json, never their values", async () => {
    const values = [`sk-${crypto.randomUUID()}`, `sk-${crypto.randomUUID()}`];
    const [first, second] = [await createSecret(api, contributor, { value: values[0] }), await createSecret(api, contributor, { value: values[1] })];
    const res = await rest(api, 'POST', evaluationPath(), {
      token: contributor.token,
      body: { model: 'model-a', name: 'with secrets', dataset: DATASET, secret_ids: [second.id, first.id, second.id.toUpperCase()] },
    });
    expect(res.status).toBe(201);
    expect(res.body.config_json.secret_ids).toEqual([second.id, first.id]);
    const read = await rest(api, 'GET', `${evaluationPath()}/${res.body.id}`, { token: owner.token });
    expect(read.body.config_json.secret_ids).toEqual([second.id, first.id]);
    const [stored] = await database().query<{ config_json: unknown }>('SELECT config_json FROM evaluations WHERE id = $id', { bind: { id: res.body.id }, type: QueryTypes.SELECT });
    for (const value of values) {
      expect(res.text).not.toContain(value);
      expect(read.text).not.toContain(value);
      expect(JSON.stringify(stored)).not.toContain(value);
    }
  });

  it('records an empty list when none are given', async () => {
    const job = await createEvaluation(api, contributor, { dataset: DATASET }, org);
    expect(job.config_json.secret_ids).toEqual([]);
  });

  it("refuses another user's secret with 404 not_found_error, even an organization owner's, and creates nothing", async () => {
    const ownersSecret = await createSecret(api, owner);
    const strangersSecret = await createSecret(api, stranger);
    const mine = await createSecret(api, contributor);
    const before = await evaluationCount();
    for (const foreign of [ownersSecret.id, strangersSecret.id, crypto.randomUUID()]) {
      const res = await rest(api, 'POST', evaluationPath(), {
        token: contributor.token,
        body: { model: 'model-a', name: 'foreign', dataset: DATASET, secret_ids: [mine.id, foreign] },
      });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('not_found_error');
      expect(res.body.detail).toContain(foreign);
    }
    expect(await evaluationCount()).toBe(before);
  });

  it('rejects a malformed id with 422 uuid_parsing at its index', async () => {
    const mine = await createSecret(api, contributor);
    const res = await rest(api, 'POST', evaluationPath(), {
      token: contributor.token,
      body: { model: 'model-a', name: 'malformed', dataset: DATASET, secret_ids: [mine.id, 'OPENAI_API_KEY'] },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'secret_ids', 1], type: 'uuid_parsing' })]);
  });

  it("answers a reader naming another user's secret with 404 before the 403 of the role", async () => {
    const foreign = await createSecret(api, owner);
    const res = await rest(api, 'POST', evaluationPath(), { token: reader.token, body: { model: 'model-a', name: 'r', dataset: DATASET, secret_ids: [foreign.id] } });
    expect(res.status).toBe(404);
    const own = await createSecret(api, reader);
    const refused = await rest(api, 'POST', evaluationPath(), { token: reader.token, body: { model: 'model-a', name: 'r', dataset: DATASET, secret_ids: [own.id] } });
    expect(refused.status).toBe(403);
  });

  it("lets an API key limited to the workspace name its user's secrets", async () => {
    const workspace = await rest(api, 'GET', `/org/${org}/ws/default`, { token: contributor.token });
    const key = await createApiKey(api, contributor, { workspace_id: workspace.body.id });
    const mine = await createSecret(api, contributor);
    const res = await rest(api, 'POST', evaluationPath(), {
      headers: { 'x-api-key': key.key },
      body: { model: 'model-a', name: 'keyed', dataset: DATASET, secret_ids: [mine.id] },
    });
    expect(res.status).toBe(201);
    expect(res.body.config_json.secret_ids).toEqual([mine.id]);
  });
});

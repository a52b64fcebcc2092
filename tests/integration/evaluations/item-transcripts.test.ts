import { QueryTypes } from 'sequelize';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createEvaluation, evaluationsPath, items } from '../../factories/evaluations';
import { appendMessages, createGroup, saveSession } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { database } from '../../../src/db/database';
import { atifProblems } from '../../helpers/atif';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let WS: string;

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  WS = evaluationsPath(owner.orgKey);
});

describe('evaluation ids by unique prefix (8+ characters)', () => {
  it('reads an evaluation by a prefix of 8 or more characters, 422 below, 404 for none, 409 for several', async () => {
    const job = await createEvaluation(api, owner, { dataset: [{ q: 1 }] });
    const byPrefix = await rest(api, 'GET', `${WS}/evaluation/${job.id.slice(0, 8)}`, { token: owner.token });
    expect(byPrefix.status).toBe(200);
    expect(byPrefix.body.id).toBe(job.id);
    expect((await rest(api, 'GET', `${WS}/evaluation/${job.id.toUpperCase()}`, { token: owner.token })).body.id).toBe(job.id);
    expect((await rest(api, 'GET', `${WS}/evaluation/${job.id.slice(0, 13)}/items`, { token: owner.token })).status).toBe(200);
    const short = await rest(api, 'GET', `${WS}/evaluation/${job.id.slice(0, 7)}`, { token: owner.token });
    expect(short.status).toBe(422);
    expect(short.body.errors[0]).toMatchObject({ loc: ['path', 'id'], type: 'string_too_short' });
    expect((await rest(api, 'GET', `${WS}/evaluation/zzzzzzzz`, { token: owner.token })).status).toBe(404);
    // Another tenant's prefix names nothing here.
    expect((await rest(api, 'GET', `/org/${roles.outsider.orgKey}/ws/default/evaluation/${job.id.slice(0, 8)}`, { token: roles.outsider.token })).status).toBe(404);
    // Two evaluations sharing a prefix: a copy of the row under an id with the same first 8 characters.
    const twinId = `${job.id.slice(0, 8)}-0000-4000-8000-000000000000`;
    await database().query(
      `INSERT INTO evaluations SELECT (jsonb_populate_record(e, jsonb_build_object('id', $new::text, 'name', 'twin'))).* FROM evaluations e WHERE e.id = $old`,
      { bind: { new: twinId, old: job.id }, type: QueryTypes.INSERT },
    );
    const ambiguous = await rest(api, 'GET', `${WS}/evaluation/${job.id.slice(0, 8)}`, { token: owner.token });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.detail).toContain('more than one');
  });
});

describe("an evaluation item's transcript and trajectory", () => {
  it("reads the item's session through its evaluation_item group, 404 when it has none", async () => {
    const job = await createEvaluation(api, owner, { dataset: [{ q: 1 }, { q: 2 }] });
    const [item, lonely] = await items(api, owner, job.id);
    const group = await createGroup(api, owner, { kind: 'evaluation_item', evaluation_id: job.id, evaluation_item_id: item.id });
    const session = await saveSession(api, owner, { group_id: group.id, origin: 'eval', visibility: 'workspace', agent: 'solver', model: 'model-x' });
    await appendMessages(api, owner, session.id, [{ role: 'user', content: 'solve it' }, { role: 'assistant', content: 'done', usage: { input_tokens: 5, output_tokens: 2 } }]);

    const transcript = await rest(api, 'GET', `${WS}/evaluation/${job.id.slice(0, 8)}/items/${item.id}/transcript`, { token: roles.reader.token });
    expect(transcript.status).toBe(200);
    expect(transcript.body.session.id).toBe(session.id);
    expect(transcript.body.messages.map((message: any) => message.content)).toEqual(['solve it', 'done']);

    const atif = await rest(api, 'GET', `${WS}/evaluation/${job.id}/items/${item.id}/trajectory`, { token: owner.token, query: { format: 'atif' } });
    expect(atif.body).toMatchObject({ schema_version: 'ATIF-v1.7', session_id: session.id, agent: { name: 'solver' }, final_metrics: { total_steps: 2 } });
    expect(atifProblems(atif.body)).toEqual([]);
    const openai = await rest(api, 'GET', `${WS}/evaluation/${job.id}/items/${item.id}/trajectory`, { token: owner.token, query: { format: 'openai' } });
    expect(openai.body).toEqual([{ role: 'user', content: 'solve it' }, { role: 'assistant', content: 'done' }]);

    expect((await rest(api, 'GET', `${WS}/evaluation/${job.id}/items/${lonely.id}/trajectory`, { token: owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${WS}/evaluation/${job.id}/items/${lonely.id}/transcript`, { token: owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${roles.outsider.orgKey}/ws/default/evaluation/${job.id}/items/${item.id}/transcript`, { token: roles.outsider.token })).status).toBe(404);
  });
});

import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { appendMessages, saveSession } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

/** `GET WS/sessions/{id}` ?limit&after_sequence (decisions §14): the transcript events after a sequence, when asked. */
const api = useTestApp();
let owner: TestUser;
let outsider: TestUser;
let WS: string;
let sessionId: string;

beforeAll(async () => {
  const roles = await createOrgWithRoles();
  owner = roles.owner;
  outsider = roles.outsider;
  WS = `/org/${owner.orgKey}/ws/default/sessions`;
  sessionId = (await saveSession(api, owner, { model: 'model-x', title: 'Events' })).id;
  await appendMessages(api, owner, sessionId, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'One?' },
    { role: 'assistant', content: 'Two.', tool_calls: [{ id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }], usage: { input_tokens: 5, output_tokens: 2, cost_usd: 0.001 } },
    { role: 'tool', tool_call_id: 'c1', content: 'a b' },
    { role: 'user', content: 'Three?' },
    { role: 'assistant', content: 'Four.' },
  ]);
  // Messages 1–2 are compacted into a summary (seq 7): events leave them out, as a transcript page does.
  const compact = await rest(api, 'POST', `${WS}/${sessionId}/transcript/compact`, { token: owner.token, body: { up_to_seq: 2, summary: { role: 'system', content: 'Summary.' } } });
  expect(compact.status).toBe(200);
});

describe('GET WS/sessions/{id} with events', () => {
  it('has no events unless asked, and the compiled statement answers it', async () => {
    await rest(api, 'GET', `${WS}/${sessionId}`, { token: owner.token });
    const { result: res, statements } = await countStatements(() => rest(api, 'GET', `${WS}/${sessionId}`, { token: owner.token }));
    expect(res.status).toBe(200);
    expect(res.body.events).toBeNull();
    // The caller's tenant, then the reply.
    expect(statements).toHaveLength(2);
    expect(statements[1]).toContain('NULL::json AS "events"');
  });

  it('gives every non-compacted message after the sequence as the transcript gives them (limit=1000, as the SDK sends)', async () => {
    const res = await rest(api, 'GET', `${WS}/${sessionId}?limit=1000`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.events.map((event: any) => event.seq)).toEqual([3, 4, 5, 6, 7]);
    const transcript = await rest(api, 'GET', `${WS}/${sessionId}/transcript?limit=1000`, { token: owner.token });
    expect(res.body.events).toEqual(transcript.body.messages);
    expect(res.body.events[0]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1', name: 'bash' }], usage: { input_tokens: 5, output_tokens: 2 } });
    expect(res.body).toMatchObject({ id: sessionId, title: 'Events', message_count: 7 });
  });

  it('pages with after_sequence and limit', async () => {
    const res = await rest(api, 'GET', `${WS}/${sessionId}?after_sequence=3&limit=2`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.events.map((event: any) => event.seq)).toEqual([4, 5]);
    const rest100 = await rest(api, 'GET', `${WS}/${sessionId}?after_sequence=6`, { token: owner.token });
    expect(rest100.body.events.map((event: any) => event.seq)).toEqual([7]);
    const none = await rest(api, 'GET', `${WS}/${sessionId}?after_sequence=7&limit=1000`, { token: owner.token });
    expect(none.body.events).toEqual([]);
  });

  it.each([
    ['limit=0', ['query', 'limit']],
    ['limit=1001', ['query', 'limit']],
    ['limit=ten', ['query', 'limit']],
    ['after_sequence=-1', ['query', 'after_sequence']],
  ])('answers 422 for %s', async (query, loc) => {
    const res = await rest(api, 'GET', `${WS}/${sessionId}?${query}`, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((item: any) => item.loc)).toContainEqual(loc);
  });

  it("is 404 for another tenant's session, events asked or not", async () => {
    const res = await rest(api, 'GET', `/org/${outsider.orgKey}/ws/default/sessions/${sessionId}?limit=1000`, { token: outsider.token });
    expect(res.status).toBe(404);
    const mine = await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/sessions/${sessionId}?limit=1000`, { token: outsider.token });
    expect(mine.status).toBe(404);
  });

  it("answers the SDK's read (limit=1000) in a fixed number of statements", async () => {
    const { result: res, statements } = await countStatements(() => rest(api, 'GET', `${WS}/${sessionId}?limit=1000`, { token: owner.token }));
    expect(res.status).toBe(200);
    // The tenant, the session, its events, its usage, its creator (no project or group here).
    expect(statements).toHaveLength(5);
    expect(statements.filter((sql) => sql.includes('session_messages') && sql.includes('m.seq >'))).toHaveLength(1);
  });

  it('prices the events of a GraphQL read by its limit', async () => {
    const query = (limit: number) => `query ($org: String!, $id: String!) {
      session(org: $org, workspace: "default", session_id: $id, limit: ${limit}) { id events { seq content usage { input_tokens } tool_calls { id name } } }
    }`;
    const small = await gql(api, query(100), { org: owner.orgKey, id: sessionId }, owner.token);
    expect(small.body.errors).toBeUndefined();
    const large = await gql(api, query(1000), { org: owner.orgKey, id: sessionId }, owner.token);
    expect(large.body.errors?.[0].extensions).toMatchObject({ status: 422, errors: [{ type: 'query_cost' }] });
  });

  it('gives events in GraphQL on the session query only', async () => {
    const res = await gql(
      api,
      `query ($org: String!, $id: String!) {
        session(org: $org, workspace: "default", session_id: $id, after_sequence: 4, limit: 2) { id events { seq role content } }
        sessions(org: $org, workspace: "default") { sessions { id events { seq } } }
      }`,
      { org: owner.orgKey, id: sessionId },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.session.events).toEqual([
      { seq: 5, role: 'user', content: 'Three?' },
      { seq: 6, role: 'assistant', content: 'Four.' },
    ]);
    expect(res.body.data.sessions.sessions.find((session: any) => session.id === sessionId).events).toBeNull();
    const example = await runOperation(api, 'SessionEvents', { org: owner.orgKey, workspace: 'default', session_id: sessionId, after_sequence: 2 }, owner.token);
    expect(example.body.errors).toBeUndefined();
    expect(example.body.data.session.events.map((event: any) => event.seq)).toEqual([3, 4, 5, 6, 7]);
  });
});

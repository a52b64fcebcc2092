import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { appendMessages, saveSession } from '../../factories/sessions';
import { atifProblems } from '../../helpers/atif';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let WS: string;
let sessionId: string;

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  WS = `/org/${owner.orgKey}/ws/default/sessions`;
  const session = await saveSession(api, owner, { agent: 'coder', model: 'model-x', title: 'Fix the build' });
  sessionId = session.id;
  await appendMessages(api, owner, sessionId, [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Why does the build fail?' },
    {
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [{ id: 'call-1', name: 'bash', arguments: { cmd: 'npm test' } }],
      usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 40, cost_usd: 0.002 },
    },
    { role: 'tool', tool_call_id: 'call-1', content: '1 failing test' },
    { role: 'assistant', content: [{ type: 'text', text: 'The lockfile is stale.' }], usage: { input_tokens: 150, output_tokens: 20 } },
  ]);
  const compact = await rest(api, 'POST', `${WS}/${sessionId}/transcript/compact`, { token: owner.token, body: { up_to_seq: 1, summary: { role: 'system', content: 'Summary so far.' } } });
  expect(compact.status).toBe(200);
});

describe('GET WS/sessions/{id}/trajectory', () => {
  it('answers ATIF v1.7 by default: a step per message, tool results as observations, usage as metrics', async () => {
    const res = await rest(api, 'GET', `${WS}/${sessionId}/trajectory`, { token: owner.token });
    expect(res.status).toBe(200);
    const trajectory = res.body;
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory).toMatchObject({ session_id: sessionId, agent: { name: 'coder', version: 'unknown', model_name: 'model-x' } });
    expect(trajectory.steps.map((step: any) => [step.source, step.message])).toEqual([
      ['user', 'Why does the build fail?'],
      ['agent', 'Let me look.'],
      ['agent', 'The lockfile is stale.'],
      ['system', 'Summary so far.'],
    ]);
    expect(trajectory.steps[1]).toMatchObject({
      tool_calls: [{ tool_call_id: 'call-1', function_name: 'bash', arguments: { cmd: 'npm test' } }],
      observation: { results: [{ source_call_id: 'call-1', content: '1 failing test' }] },
      metrics: { prompt_tokens: 100, completion_tokens: 10, cached_tokens: 40, cost_usd: 0.002 },
    });
    expect(trajectory.steps[2].extra.content).toEqual([{ type: 'text', text: 'The lockfile is stale.' }]);
    expect(trajectory.final_metrics).toEqual({ total_prompt_tokens: 250, total_completion_tokens: 30, total_cached_tokens: 40, total_cost_usd: 0.002, total_steps: 4 });
  });

  it('includes compacted messages only when asked', async () => {
    const res = await rest(api, 'GET', `${WS}/${sessionId}/trajectory`, { token: owner.token, query: { include_compacted: 'true' } });
    expect(atifProblems(res.body)).toEqual([]);
    expect(res.body.steps[0]).toMatchObject({ source: 'system', message: 'You are a coding agent.' });
  });

  it('answers OpenAI Chat Completions messages and the native form', async () => {
    const openai = await rest(api, 'GET', `${WS}/${sessionId}/trajectory`, { token: owner.token, query: { format: 'openai' } });
    expect(Array.isArray(openai.body)).toBe(true);
    expect(openai.body[1]).toEqual({ role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"npm test"}' } }] });
    expect(openai.body[2]).toEqual({ role: 'tool', content: '1 failing test', tool_call_id: 'call-1' });
    const native = await rest(api, 'GET', `${WS}/${sessionId}/trajectory`, { token: owner.token, query: { format: 'native' } });
    expect(native.body.session).toMatchObject({ id: sessionId, title: 'Fix the build' });
    expect(native.body.messages.map((message: any) => message.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(native.body.events).toEqual([]);
  });

  it('gives ATIF tool calls object arguments: JSON text of an object parsed, any other value kept in the step extra', async () => {
    const session = await saveSession(api, owner, { agent: 'coder', model: 'model-x' });
    await appendMessages(api, owner, session.id, [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'calling',
        tool_calls: [
          { id: 'c1', name: 'bash', arguments: '{"cmd": "ls"}' },
          { id: 'c2', name: 'echo', arguments: 'not json' },
          { id: 'c3', name: 'list', arguments: '[1, 2]' },
          { id: 'c4', name: 'noop' },
          { id: '__proto__', name: 'odd', arguments: 'text' },
        ],
      },
      ...['c1', 'c2', 'c3', 'c4', '__proto__'].map((id) => ({ role: 'tool', tool_call_id: id, content: 'done' })),
    ]);
    const res = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(atifProblems(res.body)).toEqual([]);
    expect(res.body.steps[1].tool_calls.map((call: any) => call.arguments)).toEqual([{ cmd: 'ls' }, {}, {}, {}, {}]);
    // Keyed by call id, whatever the id (JSON.parse makes `__proto__` an own key, as it was sent).
    expect(res.body.steps[1].extra.raw_tool_arguments).toEqual(JSON.parse('{"c2": "not json", "c3": "[1, 2]", "__proto__": "text"}'));
    // The other formats keep the arguments as saved.
    const openai = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token, query: { format: 'openai' } });
    expect(openai.body[1].tool_calls.map((call: any) => call.function.arguments)).toEqual(['{"cmd": "ls"}', 'not json', '[1, 2]', '{}', 'text']);
  });

  it('reads a tool message answering no earlier call (none named, or its call compacted away) as a system message, in ATIF and OpenAI alike; in OpenAI, one not right after its call too', async () => {
    const session = await saveSession(api, owner, { agent: 'coder', model: 'model-x' });
    await appendMessages(api, owner, session.id, [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'calling', tool_calls: [{ id: 'gone', name: 'bash', arguments: { cmd: 'ls' } }] },
      { role: 'tool', tool_call_id: 'gone', content: 'a.txt' },
      { role: 'tool', content: 'no call named' },
      { role: 'assistant', content: 'next', tool_calls: [{ id: 'kept', name: 'bash', arguments: {} }] },
      { role: 'tool', tool_call_id: 'kept', content: 'b.txt' },
      { role: 'tool', tool_call_id: 'later', content: 'answers a call made after it' },
      { role: 'assistant', content: 'late call', tool_calls: [{ id: 'later', name: 'bash', arguments: {} }] },
      { role: 'user', content: 'meanwhile' },
      { role: 'tool', tool_call_id: 'later', content: 'answers it after a user message' },
    ]);
    // The user message and the call it answers compacted away.
    expect((await rest(api, 'POST', `${WS}/${session.id}/transcript/compact`, { token: owner.token, body: { up_to_seq: 2, summary: { role: 'user', content: 'Summary.' } } })).status).toBe(200);
    const openai = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token, query: { format: 'openai' } });
    expect(openai.body.map((message: any) => [message.role, message.tool_call_id ?? null])).toEqual([
      ['system', null], ['system', null], ['assistant', null], ['tool', 'kept'], ['system', null], ['assistant', null], ['user', null], ['system', null], ['user', null],
    ]);
    // The late call is answered only after a user message: Chat Completions would refuse it, so it is not listed.
    expect(openai.body[5]).toEqual({ role: 'assistant', content: 'late call' });
    expect(openai.body[2].tool_calls.map((call: any) => call.id)).toEqual(['kept']);
    const atif = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token });
    expect(atifProblems(atif.body)).toEqual([]);
    expect(atif.body.steps.map((step: any) => [step.source, step.observation?.results.map((result: any) => result.source_call_id) ?? null])).toEqual([
      ['system', null], ['system', null], ['agent', ['kept']], ['system', null], ['agent', ['later']], ['user', null], ['user', null],
    ]);
  });

  it('lists in OpenAI form only the calls answered right after their message (a run stopped mid-call); ATIF and native keep them all', async () => {
    const session = await saveSession(api, owner, { agent: 'coder', model: 'model-x' });
    await appendMessages(api, owner, session.id, [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'two calls', tool_calls: [{ id: 'done', name: 'bash', arguments: {} }, { id: 'open', name: 'bash', arguments: {} }] },
      { role: 'tool', tool_call_id: 'done', content: null },
      { role: 'assistant', content: null, tool_calls: [{ id: 'stopped', name: 'bash', arguments: { cmd: 'sleep 100' } }] },
    ]);
    const openai = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token, query: { format: 'openai' } });
    expect(openai.body).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'two calls', tool_calls: [{ id: 'done', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
      // Without content: Chat Completions needs it, as for the assistant message left with neither content nor an answered call.
      { role: 'tool', content: '', tool_call_id: 'done' },
      { role: 'assistant', content: '' },
    ]);
    const atif = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token });
    expect(atif.body.steps.map((step: any) => step.tool_calls?.map((call: any) => call.tool_call_id) ?? null)).toEqual([null, ['done', 'open'], ['stopped']]);
    const native = await rest(api, 'GET', `${WS}/${session.id}/trajectory`, { token: owner.token, query: { format: 'native' } });
    expect(native.body.messages[3].tool_calls.map((call: any) => call.id)).toEqual(['stopped']);
  });

  it('refuses ATIF for a transcript without messages (ATIF needs a step: 422 at query.format); openai and native answer it empty', async () => {
    const empty = await saveSession(api, owner, { agent: 'coder', model: 'model-x' });
    const atif = await rest(api, 'GET', `${WS}/${empty.id}/trajectory`, { token: owner.token });
    expect(atif.status).toBe(422);
    expect(atif.body.errors).toEqual([{ loc: ['query', 'format'], msg: expect.stringContaining('at least one step'), type: 'value_error' }]);
    expect((await rest(api, 'GET', `${WS}/${empty.id}/trajectory`, { token: owner.token, query: { format: 'openai' } })).body).toEqual([]);
    expect((await rest(api, 'GET', `${WS}/${empty.id}/trajectory`, { token: owner.token, query: { format: 'native' } })).body).toMatchObject({ messages: [], events: [] });
  });

  it('refuses an unknown format (422 at query.format) and hides the session from other tenants (404)', async () => {
    const bad = await rest(api, 'GET', `${WS}/${sessionId}/trajectory`, { token: owner.token, query: { format: 'xml' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].loc).toEqual(['query', 'format']);
    expect((await rest(api, 'GET', `/org/${roles.outsider.orgKey}/ws/default/sessions/${sessionId}/trajectory`, { token: roles.outsider.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${WS}/${sessionId}/trajectory`, { token: roles.reader.token })).status).toBe(404);
  });
});

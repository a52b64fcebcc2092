import { createOrgWithRoles } from '../../factories/accounts';
import { appendMessages, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let path: string;

beforeAll(async () => {
  roles = await createOrgWithRoles();
  path = sessionsPath(roles.orgKey);
});

async function newSession(body: Record<string, unknown> = {}) {
  return saveSession(api, roles.contributor, body, { orgKey: roles.orgKey });
}

function append(sessionId: string, messages: Record<string, unknown>[]) {
  return appendMessages(api, roles.contributor, sessionId, messages, { orgKey: roles.orgKey });
}

describe('transcript append', () => {
  it('appends messages with 201 and seq, maintaining message_count, last_message_at and preview_text', async () => {
    const session = await newSession();
    const res = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: {
        messages: [
          { role: 'user', content: 'What is the weather?', id: 'm-1' },
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'Let me check. ' + 'x'.repeat(300) }],
            tool_calls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }, { id: 'c2', name: 'clock', arguments: { tz: 'UTC' } }],
            usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 5 },
          },
        ],
        context: { cwd: '/tmp' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.messages.map((message: { seq: number; id: string }) => [message.seq, message.id])).toEqual([
      [1, 'm-1'],
      [2, expect.any(String)],
    ]);
    expect(res.body.messages[1].tool_calls).toEqual([
      { id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { id: 'c2', name: 'clock', arguments: { tz: 'UTC' } },
    ]);
    const { session: updated } = res.body;
    expect(updated.message_count).toBe(2);
    expect(updated.recent_message_count).toBe(2);
    expect(updated.last_message_at).not.toBeNull();
    expect(updated.preview_text).toHaveLength(200);
    expect(updated.preview_text.startsWith('Let me check.')).toBe(true);
    expect(updated.usage).toMatchObject({
      total_message_count: 2,
      current_message_count: 2,
      total_input_tokens: 100,
      total_output_tokens: 20,
      total_cache_read_input_tokens: 5,
      total_tool_call_count: 2,
      current_tool_call_count: 2,
      total_cost_usd: null,
      current_cost_usd: null,
      last_generation_input_tokens: 100,
      compaction_count: 0,
    });
  });

  it('caps recent_message_count at 25 and continues seq across appends', async () => {
    const session = await newSession();
    await append(session.id, Array.from({ length: 20 }, (_, index) => ({ role: 'user', content: `m${index}` })));
    const res = await append(session.id, Array.from({ length: 10 }, (_, index) => ({ role: 'user', content: `n${index}` })));
    expect(res.messages[0].seq).toBe(21);
    expect(res.session.message_count).toBe(30);
    expect(res.session.recent_message_count).toBe(25);
    expect(res.session.preview_text).toBe('n9');
  });

  it('rejects an empty message list, an unknown role and negative tokens with 422 locations', async () => {
    const session = await newSession();
    const empty = await rest(api, 'POST', `${path}/${session.id}/transcript`, { token: roles.contributor.token, body: { messages: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].loc).toEqual(['body', 'messages']);
    const bad = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: { messages: [{ role: 'robot', content: 'x', usage: { input_tokens: -1 } }, { content: 'y' }] },
    });
    expect(bad.status).toBe(422);
    const items = bad.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['body.messages.0.role', 'enum'],
        ['body.messages.0.usage.input_tokens', 'greater_than_equal'],
        ['body.messages.1.role', 'missing'],
      ]),
    );
  });

  it("answers 403 for a reader and for a non-owner, 404 for an invisible session", async () => {
    const shared = await newSession({ visibility: 'workspace' });
    const hidden = await newSession();
    const body = { messages: [{ role: 'user', content: 'x' }] };
    expect((await rest(api, 'POST', `${path}/${shared.id}/transcript`, { token: roles.reader.token, body })).status).toBe(403);
    expect((await rest(api, 'POST', `${path}/${shared.id}/transcript`, { token: roles.owner.token, body })).status).toBe(403);
    expect((await rest(api, 'POST', `${path}/${hidden.id}/transcript`, { token: roles.owner.token, body })).status).toBe(404);
  });

  it('answers 409 for a repeated client message id', async () => {
    const session = await newSession();
    await append(session.id, [{ role: 'user', content: 'a', id: 'dup' }]);
    const res = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: { messages: [{ role: 'user', content: 'b', id: 'dup' }] },
    });
    expect(res.status).toBe(409);
  });
});

describe('usage and compaction', () => {
  it('derives totals over every message and current values over non-compacted ones', async () => {
    const session = await newSession();
    await append(session.id, [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1', usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 2, cost_usd: 0.25 } },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2', tool_calls: [{ id: 't', name: 'ls' }], usage: { input_tokens: 30, output_tokens: 7 } },
    ]);
    const compact = await rest(api, 'POST', `${path}/${session.id}/transcript/compact`, {
      token: roles.contributor.token,
      body: { up_to_seq: 2, summary: { role: 'system', content: 'Summary of q1/a1', usage: { input_tokens: 3, output_tokens: 1 } } },
    });
    expect(compact.status).toBe(200);
    expect(compact.body.compacted_count).toBe(2);
    expect(compact.body.messages).toEqual([expect.objectContaining({ seq: 5, is_summary: true, compacted: false })]);
    expect(compact.body.session.usage).toEqual({
      compaction_count: 1,
      total_message_count: 5,
      current_message_count: 3,
      total_input_tokens: 43,
      current_input_tokens: 33,
      total_output_tokens: 13,
      current_output_tokens: 8,
      total_cache_creation_input_tokens: 2,
      current_cache_creation_input_tokens: 0,
      total_cache_read_input_tokens: 0,
      current_cache_read_input_tokens: 0,
      total_cost_usd: 0.25,
      current_cost_usd: null,
      total_tool_call_count: 1,
      current_tool_call_count: 1,
      last_generation_input_tokens: 3,
    });
    expect(compact.body.session.message_count).toBe(5);
    expect(compact.body.session.preview_text).toBe('Summary of q1/a1');
  });

  it('reports zeros and null costs for a session without usage data', async () => {
    const session = await newSession();
    const res = await append(session.id, [{ role: 'user', content: 'no usage' }]);
    expect(res.session.usage).toMatchObject({ total_input_tokens: 0, total_cost_usd: null, current_cost_usd: null, last_generation_input_tokens: null, total_message_count: 1 });
  });

  it('rejects up_to_seq beyond the transcript with 422', async () => {
    const session = await newSession();
    await append(session.id, [{ role: 'user', content: 'only' }]);
    const res = await rest(api, 'POST', `${path}/${session.id}/transcript/compact`, {
      token: roles.contributor.token,
      body: { up_to_seq: 5, summary: { role: 'system', content: 's' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ loc: ['body', 'up_to_seq'], type: 'less_than_equal' });
    const zero = await rest(api, 'POST', `${path}/${session.id}/transcript/compact`, {
      token: roles.contributor.token,
      body: { up_to_seq: 0, summary: { role: 'system', content: 's' } },
    });
    expect(zero.status).toBe(422);
    expect(zero.body.errors[0]).toMatchObject({ loc: ['body', 'up_to_seq'], type: 'greater_than_equal' });
  });
});

describe('transcript read', () => {
  it('pages with limit and after_seq, hides compacted messages unless asked', async () => {
    const session = await newSession({ visibility: 'workspace' });
    await append(session.id, Array.from({ length: 5 }, (_, index) => ({ role: 'user', content: `m${index + 1}` })));
    await rest(api, 'POST', `${path}/${session.id}/transcript/compact`, {
      token: roles.contributor.token,
      body: { up_to_seq: 2, summary: { role: 'system', content: 'sum' } },
    });
    const page = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.reader.token, query: { limit: 2 } });
    expect(page.status).toBe(200);
    expect(page.body.messages.map((message: { seq: number }) => message.seq)).toEqual([3, 4]);
    expect(page.body.has_more).toBe(true);
    expect(page.body.session.id).toBe(session.id);
    const rest2 = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.reader.token, query: { after_seq: 4 } });
    expect(rest2.body.messages.map((message: { seq: number }) => message.seq)).toEqual([5, 6]);
    expect(rest2.body.has_more).toBe(false);
    const all = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.reader.token, query: { include_compacted: 'true' } });
    expect(all.body.messages.map((message: { seq: number; compacted: boolean }) => [message.seq, message.compacted])).toEqual([
      [1, true], [2, true], [3, false], [4, false], [5, false], [6, false],
    ]);
  });

  it('rejects a limit over 1000 and a bad boolean with 422 query locations', async () => {
    const session = await newSession();
    const res = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.contributor.token, query: { limit: 1001, include_compacted: 'maybe' } });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(expect.arrayContaining([['query.include_compacted', 'bool_parsing']]));
  });

  it('reads the transcript through GraphQL, as navigation on the session too', async () => {
    const session = await newSession();
    await append(session.id, [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi', usage: { input_tokens: 4, output_tokens: 2, cost_usd: 0.5 } }]);
    const res = await gql(
      api,
      `query($o: String!, $id: String!) {
        session_transcript(org: $o, workspace: "default", session_id: $id, limit: 1) { has_more messages { seq content } }
        session(org: $o, workspace: "default", session_id: $id) { messages { seq role usage { input_tokens cost_usd } } usage { total_cost_usd } }
      }`,
      { o: roles.orgKey, id: session.id },
      roles.contributor.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.session_transcript).toEqual({ has_more: true, messages: [{ seq: 1, content: 'hello' }] });
    expect(res.body.data.session.messages).toEqual([
      { seq: 1, role: 'user', usage: null },
      { seq: 2, role: 'assistant', usage: { input_tokens: 4, cost_usd: 0.5 } },
    ]);
    expect(res.body.data.session.usage.total_cost_usd).toBe(0.5);
  });

  it('keeps GraphQL-only navigation fields out of REST replies', async () => {
    const session = await newSession();
    const res = await rest(api, 'GET', `${path}/${session.id}`, { token: roles.contributor.token });
    expect(res.body).not.toHaveProperty('messages');
    expect(res.body).not.toHaveProperty('project');
    expect(res.body).not.toHaveProperty('creator');
  });
});

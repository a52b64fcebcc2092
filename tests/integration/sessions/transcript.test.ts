import { createOrgWithRoles } from '../../factories/accounts';
import { appendMessages, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { database } from '../../../src/db/database';

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
    // Twice in one request: 422 at the messages, nothing stored.
    const twice = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: { messages: [{ role: 'user', content: 'c', id: 'twice' }, { role: 'assistant', content: 'd' }, { role: 'user', content: 'e', id: 'twice' }] },
    });
    expect([twice.status, twice.body.errors]).toEqual([422, [{ loc: ['body', 'messages'], msg: 'message ids must be unique within the request', type: 'value_error' }]]);
    const stored = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.contributor.token });
    expect(stored.body.messages.map((message: { id: string }) => message.id)).toEqual(['dup']);
  });
});

describe('transcript bounds, null content and concurrency', () => {
  it('rejects a huge cost or token count with 422 less_than_equal, so usage sums stay readable', async () => {
    const session = await newSession();
    const res = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: {
        messages: [
          { role: 'assistant', content: 'a', usage: { cost_usd: 1e308, input_tokens: 2_000_000_000 } },
          { role: 'assistant', content: 'b', usage: { cost_usd: 1e308, output_tokens: 100_000_001 } },
        ],
      },
    });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        ['body.messages.0.usage.cost_usd', 'less_than_equal'],
        ['body.messages.0.usage.input_tokens', 'less_than_equal'],
        ['body.messages.1.usage.cost_usd', 'less_than_equal'],
        ['body.messages.1.usage.output_tokens', 'less_than_equal'],
      ]),
    );
    const max = await append(session.id, [
      { role: 'assistant', content: 'a', usage: { cost_usd: 1_000_000, input_tokens: 100_000_000 } },
      { role: 'assistant', content: 'b', usage: { cost_usd: 1_000_000, input_tokens: 100_000_000 } },
    ]);
    expect(max.session.usage).toMatchObject({ total_cost_usd: 2_000_000, total_input_tokens: 200_000_000 });
    expect((await rest(api, 'GET', `${path}/${session.id}`, { token: roles.contributor.token })).status).toBe(200);
    expect((await rest(api, 'GET', path, { token: roles.contributor.token })).status).toBe(200);
  });

  it('has the database refuse out-of-range usage (CHECK constraint of migration 0006)', async () => {
    const session = await newSession();
    await append(session.id, [{ role: 'assistant', content: 'a', usage: { cost_usd: 1 } }]);
    await expect(
      database().query('UPDATE session_messages SET cost_usd = 1e308 WHERE session_id = $id', { bind: { id: session.id } }),
    ).rejects.toThrow(/session_messages_usage_bounds/);
  });

  it('accepts null content (an assistant message with only tool calls) and still reports absent content as missing', async () => {
    const session = await newSession();
    const res = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: { messages: [{ role: 'user', content: 'list files' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'ls', arguments: {} }] }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.messages[1]).toMatchObject({ seq: 2, content: null, tool_calls: [{ id: 'c1', name: 'ls', arguments: {} }] });
    expect(res.body.session.preview_text).toBe('list files');
    const absent = await rest(api, 'POST', `${path}/${session.id}/transcript`, { token: roles.contributor.token, body: { messages: [{ role: 'user' }] } });
    expect(absent.status).toBe(422);
    expect(absent.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'messages', 0, 'content'], type: 'missing' })]);
    const gql1 = await gql(
      api,
      `mutation($o: String!, $id: String!, $input: TranscriptAppendRequest!) { append_session_transcript(org: $o, workspace: "default", session_id: $id, input: $input) { messages { seq content } } }`,
      { o: roles.orgKey, id: session.id, input: { messages: [{ role: 'assistant', content: null }] } },
      roles.contributor.token,
    );
    expect(gql1.body.errors).toBeUndefined();
    expect(gql1.body.data.append_session_transcript.messages).toEqual([{ seq: 3, content: null }]);
  });

  it('keeps seq gap-free and unique under six parallel appends', async () => {
    const session = await newSession();
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, batch) =>
        rest(api, 'POST', `${path}/${session.id}/transcript`, {
          token: roles.contributor.token,
          body: { messages: [{ role: 'user', content: `b${batch}-1` }, { role: 'user', content: `b${batch}-2` }] },
        }),
      ),
    );
    expect(replies.map((res) => res.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const seqs = replies.flatMap((res) => res.body.messages.map((message: { seq: number }) => message.seq)).sort((a: number, b: number) => a - b);
    expect(seqs).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    const read = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.contributor.token });
    expect(read.body.messages.map((message: { seq: number }) => message.seq)).toEqual(seqs);
    expect(read.body.session.message_count).toBe(12);
  });

  it('writes the session row once per append, context included', async () => {
    const session = await newSession();
    const db = database();
    await db.query('CREATE TABLE IF NOT EXISTS test_session_row_writes (session_id uuid NOT NULL)');
    await db.query(`CREATE OR REPLACE FUNCTION test_count_session_row_writes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_session_row_writes VALUES (NEW.id); RETURN NEW; END $$`);
    await db.query(`CREATE TRIGGER test_count_session_row_writes BEFORE UPDATE ON sessions FOR EACH ROW
      WHEN (NEW.id = '${session.id}'::uuid) EXECUTE FUNCTION test_count_session_row_writes()`);
    try {
      const res = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
        token: roles.contributor.token,
        body: { messages: [{ role: 'user', content: 'one' }], context: { cwd: '/work' } },
      });
      expect(res.status).toBe(201);
      expect(res.body.session).toMatchObject({ message_count: 1, preview_text: 'one' });
    } finally {
      await db.query('DROP TRIGGER test_count_session_row_writes ON sessions');
    }
    const [rows] = await db.query(`SELECT count(*)::int AS n FROM test_session_row_writes WHERE session_id = '${session.id}'`);
    expect(rows).toEqual([{ n: 1 }]);
    const [stored] = await db.query(`SELECT context FROM sessions WHERE id = '${session.id}'`);
    expect(stored).toEqual([{ context: { cwd: '/work' } }]);
  });
});

describe('recent_message_count', () => {
  it('is null without transcript messages and derived when read, so it decays after 24 h', async () => {
    const session = await newSession();
    expect(session.recent_message_count).toBeNull();
    const res = await append(session.id, [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]);
    expect(res.session.recent_message_count).toBe(2);
    await database().query("UPDATE session_messages SET created_at = now() - interval '2 days' WHERE session_id = $id", { bind: { id: session.id } });
    const read = await rest(api, 'GET', `${path}/${session.id}`, { token: roles.contributor.token });
    expect(read.body.recent_message_count).toBe(0);
    expect(read.body.message_count).toBe(2);
    const again = await append(session.id, [{ role: 'user', content: 'c' }]);
    expect(again.session.recent_message_count).toBe(1);
    const viaGql = await gql(
      api,
      `query($o: String!, $id: String!) { session(org: $o, workspace: "default", session_id: $id) { recent_message_count } }`,
      { o: roles.orgKey, id: session.id },
      roles.contributor.token,
    );
    expect(viaGql.body.data.session.recent_message_count).toBe(1);
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
      current_cost_usd: 0, // the only costed message is compacted: 0, not null

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

  it('takes last_generation_input_tokens from the newest message with usage, even when newer messages have none', async () => {
    const session = await newSession();
    await append(session.id, [
      { role: 'assistant', content: 'a1', usage: { input_tokens: 11, output_tokens: 1 } },
      { role: 'assistant', content: 'a2', usage: { input_tokens: 22, output_tokens: 2 } },
    ]);
    const res = await append(session.id, [{ role: 'user', content: 'no usage' }, { role: 'tool', content: 'x', tool_call_id: 't' }]);
    expect(res.session.usage.last_generation_input_tokens).toBe(22);
    const other = await newSession();
    const viaGql = await gql(
      api,
      `query($o: String!, $w: String!) { sessions(org: $o, workspace: $w, limit: 100) { sessions { id usage { last_generation_input_tokens } } } }`,
      { o: roles.orgKey, w: 'default' },
      roles.contributor.token,
    );
    const byId = new Map(viaGql.body.data.sessions.sessions.map((row: { id: string; usage: unknown }) => [row.id, row.usage]));
    expect(byId.get(session.id)).toEqual({ last_generation_input_tokens: 22 });
    expect(byId.get(other.id)).toEqual({ last_generation_input_tokens: null });
  });

  it('answers 409 to a compaction that finds nothing left to compact (a retry, or the loser of two at once), adding no summary', async () => {
    const session = await newSession();
    await append(session.id, [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }]);
    const compact = () =>
      rest(api, 'POST', `${path}/${session.id}/transcript/compact`, { token: roles.contributor.token, body: { up_to_seq: 2, summary: { role: 'system', content: 's' } } });
    const [first, second] = await Promise.all([compact(), compact()]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    expect([first, second].find((res) => res.status === 409)!.body.type).toBe('conflict_error');
    const again = await compact();
    expect(again.status).toBe(409);
    const read = await rest(api, 'GET', `${path}/${session.id}`, { token: roles.contributor.token });
    expect([read.body.message_count, read.body.usage.compaction_count]).toEqual([3, 1]);
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
    // Type errors (bool_parsing) are reported without the range checks, so each is checked on its own.
    const limit = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.contributor.token, query: { limit: 1001 } });
    expect(limit.status).toBe(422);
    expect(limit.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'limit'], type: 'less_than_equal' })]);
    const res = await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.contributor.token, query: { limit: 1001, include_compacted: 'maybe' } });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(expect.arrayContaining([['query.include_compacted', 'bool_parsing']]));
    expect((await rest(api, 'GET', `${path}/${session.id}/transcript`, { token: roles.contributor.token, query: { limit: 1000 } })).status).toBe(200);
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

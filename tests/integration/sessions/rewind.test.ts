import { QueryTypes } from 'sequelize';
import { BACKFILL_SQL } from '../../../migrations/0074-compacted-by';
import { database } from '../../../src/db/database';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { appendMessages, saveSession } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let WS: string;

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  WS = `/org/${owner.orgKey}/ws/default/sessions`;
});

async function sessionWithMessages() {
  const session = await saveSession(api, owner, { visibility: 'workspace' });
  await appendMessages(api, owner, session.id, [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: 'two' },
    { role: 'user', content: [{ type: 'text', text: 'three' }] },
    { role: 'assistant', content: 'four' },
  ]);
  return session;
}

/** Compacts the transcript up to `upTo`, with a summary written as a user message. */
const compactUpTo = (sessionId: string, upTo: number, summary: string) =>
  rest(api, 'POST', `${WS}/${sessionId}/transcript/compact`, { token: owner.token, body: { up_to_seq: upTo, summary: { role: 'user', content: summary } } });

describe('POST WS/sessions/{id}/rewind', () => {
  it('deletes the user message and every later one, returning its content, and the preview follows', async () => {
    const session = await sessionWithMessages();
    const res = await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 3 } });
    expect(res.body).toEqual({ deleted_count: 2, target_seq: 3, restored_content: [{ type: 'text', text: 'three' }] });
    const transcript = await rest(api, 'GET', `${WS}/${session.id}/transcript`, { token: owner.token });
    expect(transcript.body.messages.map((message: any) => message.content)).toEqual(['one', 'two']);
    const read = await rest(api, 'GET', `${WS}/${session.id}`, { token: owner.token });
    expect(read.body).toMatchObject({ message_count: 2, preview_text: 'two' });
  });

  it('undoes the compactions made since the rewound message was appended, and keeps the earlier ones', async () => {
    const session = await sessionWithMessages();
    const compact = (upTo: number, summary: string) => compactUpTo(session.id, upTo, summary);
    // 1–2 compacted (summary 5), then 3 and the rest (summary 7): 1 user, 2 assistant, 3 user, 4 assistant, 5 summary, 6 user, 7 summary.
    expect((await compact(2, 'Earlier.')).status).toBe(200);
    await appendMessages(api, owner, session.id, [{ role: 'user', content: 'six' }]);
    expect((await compact(6, 'Later.')).status).toBe(200);
    // Rewinding to 6 deletes the later summary: 3, 4 and the earlier summary are current again, 1–2 stay compacted under it.
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 6 } })).body).toMatchObject({ deleted_count: 2 });
    const current = await rest(api, 'GET', `${WS}/${session.id}/transcript`, { token: owner.token });
    expect(current.body.messages.map((message: any) => message.seq)).toEqual([3, 4, 5]);
    const read = await rest(api, 'GET', `${WS}/${session.id}`, { token: owner.token });
    expect(read.body).toMatchObject({ message_count: 5, usage: { total_message_count: 5, current_message_count: 3, compaction_count: 1 } });
    // Rewinding to 3 deletes the earlier summary too: it was made after 3 was appended, so 1–2 are current again.
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 3 } })).body).toMatchObject({ deleted_count: 3 });
    const all = await rest(api, 'GET', `${WS}/${session.id}/transcript`, { token: owner.token, query: { include_compacted: true } });
    expect(all.body.messages.map((message: any) => [message.seq, message.compacted])).toEqual([[1, false], [2, false]]);
  });

  it('undoes the compaction whose summary it rewinds to (a summary written as a user message)', async () => {
    const session = await sessionWithMessages();
    expect((await compactUpTo(session.id, 4, 'Summary.')).status).toBe(200);
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 5 } })).body).toMatchObject({ deleted_count: 1, restored_content: 'Summary.' });
    const current = await rest(api, 'GET', `${WS}/${session.id}/transcript`, { token: owner.token });
    expect(current.body.messages.map((message: any) => message.seq)).toEqual([1, 2, 3, 4]);
    expect((await rest(api, 'GET', `${WS}/${session.id}`, { token: owner.token })).body.usage).toMatchObject({ current_message_count: 4, compaction_count: 0 });
  });

  it('gives messages compacted before migration 0074 the summary of their compaction (its backfill)', async () => {
    const session = await sessionWithMessages();
    const compact = (upTo: number) => compactUpTo(session.id, upTo, 'S');
    expect((await compact(2)).status).toBe(200);
    expect((await compact(4)).status).toBe(200);
    const read = () => database().query<{ seq: number; compacted_by: number | null }>('SELECT seq, compacted_by FROM session_messages WHERE session_id = $id ORDER BY seq', { bind: { id: session.id }, type: QueryTypes.SELECT });
    const written = await read();
    expect(written.map((row) => [row.seq, row.compacted_by])).toEqual([[1, 5], [2, 5], [3, 6], [4, 6], [5, null], [6, null]]);
    await database().query('UPDATE session_messages SET compacted_by = NULL WHERE session_id = $id', { bind: { id: session.id } });
    await database().query(BACKFILL_SQL);
    expect(await read()).toEqual(written);
  });

  it('keeps as preview the last remaining message with text, past messages without any (tool calls only)', async () => {
    const session = await saveSession(api, owner, { visibility: 'workspace' });
    await appendMessages(api, owner, session.id, [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }] },
      { role: 'user', content: 'again' },
    ]);
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 3 } })).status).toBe(200);
    const read = await rest(api, 'GET', `${WS}/${session.id}`, { token: owner.token });
    expect(read.body).toMatchObject({ message_count: 2, preview_text: 'hello' });
  });

  it('refuses a seq that is not a user message (422 at body.from_seq), a frozen session (409), a reader (403) and another tenant (404)', async () => {
    const session = await sessionWithMessages();
    const assistant = await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 2 } });
    expect(assistant.status).toBe(422);
    expect(assistant.body.errors[0].loc).toEqual(['body', 'from_seq']);
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 99 } })).status).toBe(422);
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 0 } })).body.errors[0].loc).toEqual(['body', 'from_seq']);
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: roles.reader.token, body: { from_seq: 1 } })).status).toBe(403);
    expect((await rest(api, 'POST', `/org/${roles.outsider.orgKey}/ws/default/sessions/${session.id}/rewind`, { token: roles.outsider.token, body: { from_seq: 1 } })).status).toBe(404);
    await rest(api, 'POST', `${WS}/${session.id}/freeze`, { token: owner.token });
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 1 } })).status).toBe(409);
  });

  it('lets one of two racing rewinds of the same message win; the other finds it gone (422)', async () => {
    const session = await sessionWithMessages();
    const replies = await Promise.all([1, 2].map(() => rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 3 } })));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 422]);
  });
});

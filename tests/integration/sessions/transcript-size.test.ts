import { QueryTypes } from 'sequelize';
import { config, overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { COUNT_TRANSCRIPTS_SQL } from '../../../migrations/0066-session-transcript-bytes';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { saveSession } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * A session's stored messages are held to SESSION_MAX_TRANSCRIPT_BYTES
 * (sessions.transcript_bytes, kept under the session's row lock), so no
 * read of one transcript (a page, a trajectory, a session's events) loads
 * more than that.
 */
const api = useTestApp();
let owner: TestUser;
let WS: string;
const before = config().SESSION_MAX_TRANSCRIPT_BYTES;
const LIMIT = 4096;

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  WS = `/org/${owner.orgKey}/ws/default/sessions`;
  overrideConfig({ SESSION_MAX_TRANSCRIPT_BYTES: LIMIT });
});
afterAll(() => overrideConfig({ SESSION_MAX_TRANSCRIPT_BYTES: before }));

const append = (id: string, messages: Record<string, unknown>[]) => rest(api, 'POST', `${WS}/${id}/transcript`, { token: owner.token, body: { messages } });
const stored = async (id: string) =>
  (await database().query<{ bytes: string; count: number; messages: number }>(
    `SELECT s.transcript_bytes AS bytes, s.message_count AS count, (SELECT count(*)::int FROM session_messages m WHERE m.session_id = s.id) AS messages FROM sessions s WHERE s.id = $id`,
    { type: QueryTypes.SELECT, bind: { id } },
  ))[0];

it('refuses with 409 an append that would take the transcript past the limit, keeping nothing of it', async () => {
  const session = await saveSession(api, owner);
  // "x…" as jsonb text is its length plus two quotes.
  expect((await append(session.id, [{ role: 'user', content: 'x'.repeat(3000) }])).status).toBe(201);
  expect(await stored(session.id)).toEqual({ bytes: '3002', count: 1, messages: 1 });
  const over = await append(session.id, [{ role: 'assistant', content: 'y'.repeat(500) }, { role: 'user', content: 'z'.repeat(600) }]);
  expect(over.status).toBe(409);
  expect(over.body).toMatchObject({ type: 'conflict_error', detail: expect.stringContaining('SESSION_MAX_TRANSCRIPT_BYTES') });
  expect(await stored(session.id)).toEqual({ bytes: '3002', count: 1, messages: 1 });
  // What fits is kept; tool calls and metadata count too.
  const fits = await append(session.id, [{ role: 'assistant', content: 'ok', tool_calls: [{ id: 'c1', name: 'bash', arguments: { cmd: 'ls' } }], metadata: { k: 'v' } }]);
  expect(fits.status).toBe(201);
  const [{ bytes }] = await database().query<{ bytes: number }>(
    `SELECT sum(octet_length(coalesce(content::text, '')) + octet_length(coalesce(tool_calls::text, '')) + octet_length(coalesce(metadata::text, '')))::int AS bytes FROM session_messages WHERE session_id = $id`,
    { type: QueryTypes.SELECT, bind: { id: session.id } },
  );
  expect(await stored(session.id)).toEqual({ bytes: String(bytes), count: 2, messages: 2 });
});

it('gives the room back when a rewind deletes messages, and a compaction summary counts', async () => {
  const session = await saveSession(api, owner);
  expect((await append(session.id, [{ role: 'user', content: 'a'.repeat(2000) }, { role: 'user', content: 'b'.repeat(1500) }])).status).toBe(201);
  expect((await append(session.id, [{ role: 'assistant', content: 'c'.repeat(1000) }])).status).toBe(409);
  expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 2 } })).status).toBe(200);
  expect(await stored(session.id)).toEqual({ bytes: '2002', count: 1, messages: 1 });
  expect((await append(session.id, [{ role: 'assistant', content: 'c'.repeat(1000) }])).status).toBe(201);
  const compact = await rest(api, 'POST', `${WS}/${session.id}/transcript/compact`, { token: owner.token, body: { up_to_seq: 2, summary: { role: 'system', content: 's'.repeat(2000) } } });
  expect(compact.status).toBe(409);
  expect(await stored(session.id)).toMatchObject({ bytes: '3004', count: 2 });
});

it('lets one of two appends racing for the last room in', async () => {
  const session = await saveSession(api, owner);
  expect((await append(session.id, [{ role: 'user', content: 'a'.repeat(2000) }])).status).toBe(201);
  const replies = await Promise.all([append(session.id, [{ role: 'user', content: 'b'.repeat(1500) }]), append(session.id, [{ role: 'user', content: 'c'.repeat(1500) }])]);
  expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
  expect(await stored(session.id)).toEqual({ bytes: '3504', count: 2, messages: 2 });
});

it('counts the transcripts stored before the limit existed (the migration)', async () => {
  const session = await saveSession(api, owner);
  expect((await append(session.id, [{ role: 'user', content: 'q'.repeat(100) }, { role: 'assistant', content: [{ type: 'text', text: 'r' }] }])).status).toBe(201);
  const counted = (await stored(session.id)).bytes;
  await database().query(`UPDATE sessions SET transcript_bytes = 0 WHERE id = $id`, { bind: { id: session.id } });
  await database().query(COUNT_TRANSCRIPTS_SQL);
  expect((await stored(session.id)).bytes).toBe(counted);
});

describe('the number of messages (SESSION_MAX_MESSAGES)', () => {
  // Messages without content count nothing against the bytes: without a count of their own, a session could
  // hold millions of them, and every read of its usage (a list page showing it) would count them all.
  const maxMessages = config().SESSION_MAX_MESSAGES;
  beforeAll(() => overrideConfig({ SESSION_MAX_MESSAGES: 3 }));
  afterAll(() => overrideConfig({ SESSION_MAX_MESSAGES: maxMessages }));
  const empty = (count: number) => Array.from({ length: count }, () => ({ role: 'assistant', content: null }));

  it('refuses with 409 an append past the limit, keeping nothing of it, and gives the room back on a rewind', async () => {
    const session = await saveSession(api, owner);
    expect((await append(session.id, [{ role: 'user', content: 'q' }, ...empty(1)])).status).toBe(201);
    const over = await append(session.id, empty(2));
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ type: 'conflict_error', detail: expect.stringContaining('3 messages (SESSION_MAX_MESSAGES)') });
    expect(await stored(session.id)).toMatchObject({ count: 2, messages: 2 });
    // The client's own message_count (a session save may set it) does not make room.
    expect((await rest(api, 'POST', WS, { token: owner.token, body: { id: session.id, model: 'm', message_count: 0 } })).status).toBe(200);
    expect((await append(session.id, empty(2))).status).toBe(409);
    expect((await rest(api, 'POST', `${WS}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 1 } })).status).toBe(200);
    expect((await append(session.id, [{ role: 'user', content: 'again' }, ...empty(2)])).status).toBe(201);
    expect(await stored(session.id)).toMatchObject({ messages: 3 });
  });

  it('lets one of two appends racing for the last place in', async () => {
    const session = await saveSession(api, owner);
    expect((await append(session.id, empty(2))).status).toBe(201);
    const replies = await Promise.all([append(session.id, empty(1)), append(session.id, empty(1))]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
    expect(await stored(session.id)).toMatchObject({ messages: 3 });
  });
});

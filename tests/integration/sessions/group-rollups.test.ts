import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { database } from '../../../src/db/database';
import { addToGroupRollup, RECOUNT_SQL, recountGroups } from '../../../src/modules/session-groups/group-rollups';
import { addMember, createUser, type TestUser } from '../../factories/accounts';
import { appendMessages, createGroup, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Group counts are columns maintained on every session write (decisions §6).
 * After each kind of write, and after concurrent ones, the columns must equal
 * a recount from scratch.
 */
const api = useTestApp();
let owner: TestUser;
let contributor: TestUser;
let groups: string[];

interface Counts {
  session_count: number;
  active_session_count: number;
  message_count: number;
  total_tokens: number;
  last_activity_at: string | null;
}

function normalise(row: Record<string, unknown>): Counts {
  return {
    session_count: Number(row.session_count),
    active_session_count: Number(row.active_session_count),
    message_count: Number(row.message_count),
    total_tokens: Number(row.total_tokens),
    last_activity_at: row.last_activity_at ? new Date(row.last_activity_at as string).toISOString() : null,
  };
}

async function expectColumnsEqualRecount(): Promise<Counts[]> {
  const columns = await database().query<Record<string, unknown>>(
    'SELECT id, session_count, active_session_count, message_count, total_tokens, last_activity_at FROM session_groups WHERE id = ANY($ids::uuid[]) ORDER BY id',
    { bind: { ids: groups }, type: QueryTypes.SELECT },
  );
  const recount = await database().query<Record<string, unknown>>(`${RECOUNT_SQL} ORDER BY 1`, { bind: { ids: groups }, type: QueryTypes.SELECT });
  expect(columns.map(normalise)).toEqual(recount.map(normalise));
  return columns.map(normalise);
}

const path = () => sessionsPath(owner.orgKey);
const usage = (input: number, output: number) => ({ role: 'assistant', content: 'reply', usage: { input_tokens: input, output_tokens: output } });

beforeAll(async () => {
  [owner, contributor] = await Promise.all([createUser(), createUser()]);
  await addMember(owner.orgKey, contributor, 'contributor');
  groups = [(await createGroup(api, owner, { kind: 'workflow' })).id, (await createGroup(api, owner, { kind: 'worker_run' })).id].sort();
});

describe('group counts maintained on write', () => {
  let a: { id: string };
  let b: { id: string };
  let c: { id: string };

  it('counts new sessions of any owner and visibility, with their message counts', async () => {
    a = await saveSession(api, owner, { group_id: groups[0], message_count: 4 });
    b = await saveSession(api, contributor, { group_id: groups[0], visibility: 'workspace' }, { orgKey: owner.orgKey });
    c = await saveSession(api, owner, { group_id: groups[1] });
    await saveSession(api, owner, {}); // no group
    const [first] = await expectColumnsEqualRecount();
    expect(first).toMatchObject({ session_count: 2, active_session_count: 2, message_count: 4 });
  });

  it('adds appended and compacted messages and their tokens', async () => {
    await appendMessages(api, owner, a.id, [{ role: 'user', content: 'hi' }, usage(100, 20)]);
    await appendMessages(api, contributor, b.id, [usage(5, 5)], { orgKey: owner.orgKey });
    const compact = await rest(api, 'POST', `${path()}/${a.id}/transcript/compact`, {
      token: owner.token,
      body: { up_to_seq: 1, summary: { role: 'system', content: 'summary', usage: { input_tokens: 3, output_tokens: 1 } } },
    });
    expect(compact.status).toBe(200);
    const [first] = await expectColumnsEqualRecount();
    expect(first).toMatchObject({ message_count: 4 + 2 + 1 + 1, total_tokens: 120 + 10 + 4 });
  });

  it('follows a rewind: the deleted messages and their tokens leave the group, and the session usage follows', async () => {
    const session = await saveSession(api, owner, { group_id: groups[1] });
    await appendMessages(api, owner, session.id, [{ role: 'user', content: 'first' }, usage(10, 2), { role: 'user', content: 'second' }, usage(40, 8)]);
    const before = await expectColumnsEqualRecount();
    const rewind = await rest(api, 'POST', `${path()}/${session.id}/rewind`, { token: owner.token, body: { from_seq: 3 } });
    expect(rewind.status).toBe(200);
    expect(rewind.body).toEqual({ deleted_count: 2, target_seq: 3, restored_content: 'second' });
    const after = await expectColumnsEqualRecount();
    expect(after[1].message_count).toBe(before[1].message_count - 2);
    expect(after[1].total_tokens).toBe(before[1].total_tokens - 48);
    const read = await rest(api, 'GET', `${path()}/${session.id}`, { token: owner.token });
    expect(read.body).toMatchObject({ message_count: 2, usage: { total_input_tokens: 10, total_output_tokens: 2 } });
    // The next message takes the rewound seq.
    const appended = await appendMessages(api, owner, session.id, [{ role: 'user', content: 'again' }]);
    expect(appended.messages[0].seq).toBe(3);
  });

  it('follows archive, unarchive and message_count changes by save and by PATCH', async () => {
    expect((await rest(api, 'POST', `${path()}/${a.id}/archive`, { token: owner.token })).status).toBe(200);
    expect((await expectColumnsEqualRecount())[0].active_session_count).toBe(1);
    expect((await rest(api, 'POST', `${path()}/${a.id}/unarchive`, { token: owner.token })).status).toBe(200);
    await expectColumnsEqualRecount();
    expect((await rest(api, 'PATCH', `${path()}/${a.id}`, { token: owner.token, body: { message_count: 50 } })).status).toBe(200);
    await expectColumnsEqualRecount();
    await saveSession(api, owner, { id: a.id, group_id: groups[0], message_count: 2 });
    await expectColumnsEqualRecount();
  });

  it('recounts both groups when a session moves between groups, joins one or leaves one', async () => {
    await saveSession(api, owner, { id: a.id, group_id: groups[1] });
    await expectColumnsEqualRecount();
    await saveSession(api, owner, { id: c.id, group_id: null });
    await expectColumnsEqualRecount();
    const loose = await saveSession(api, owner, {});
    await appendMessages(api, owner, loose.id, [usage(9, 1)]);
    await saveSession(api, owner, { id: loose.id, group_id: groups[0] });
    const [first] = await expectColumnsEqualRecount();
    expect(first.total_tokens).toBeGreaterThanOrEqual(10);
  });

  it('recounts the group when a session is deleted', async () => {
    expect((await rest(api, 'DELETE', `${path()}/${a.id}`, { token: owner.token })).status).toBe(200);
    await expectColumnsEqualRecount();
  });

  it('stays exact under concurrent appends to sessions of one group and concurrent new sessions', async () => {
    const sessions = await Promise.all(Array.from({ length: 5 }, () => saveSession(api, owner, { group_id: groups[0] })));
    const appends = Array.from({ length: 25 }, (_, index) =>
      rest(api, 'POST', `${path()}/${sessions[index % 5].id}/transcript`, { token: owner.token, body: { messages: [usage(index, 1), { role: 'user', content: 'more' }] } }),
    );
    const saves = Array.from({ length: 10 }, () => saveSession(api, owner, { group_id: groups[0], message_count: 3 }));
    const results = await Promise.all([...appends, ...saves]);
    expect(results.slice(0, 25).every((res) => (res as { status: number }).status === 201)).toBe(true);
    const [first] = await expectColumnsEqualRecount();
    expect(first.session_count).toBeGreaterThanOrEqual(15);
  });

  it('never moves last_message_at or the group last_activity_at back under concurrent appends to one session', async () => {
    const group = (await createGroup(api, owner, { kind: 'workflow' })).id;
    const session = await saveSession(api, owner, { group_id: group });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => rest(api, 'POST', `${path()}/${session.id}/transcript`, { token: owner.token, body: { messages: [{ role: 'user', content: 'hi' }] } })),
    );
    expect(replies.map((res) => res.status)).toEqual(replies.map(() => 201));
    // In the order the appends took the session's row lock (their seq), each one's last_message_at is no earlier than the one before.
    const observed = replies
      .map((res) => ({ seq: res.body.messages[0].seq as number, at: Date.parse(res.body.session.last_message_at) }))
      .sort((a, b) => a.seq - b.seq)
      .map((reply) => reply.at);
    expect(observed).toEqual([...observed].sort((a, b) => a - b));
    const [row] = await database().query<{ last_message_at: Date; last_activity_at: Date }>(
      'SELECT s.last_message_at, g.last_activity_at FROM sessions s JOIN session_groups g ON g.id = s.group_id WHERE s.id = $id',
      { bind: { id: session.id }, type: QueryTypes.SELECT },
    );
    // The stored values are the latest write's: the latest of every reply.
    expect(row.last_message_at.getTime()).toBe(Math.max(...observed));
    expect(row.last_activity_at.getTime()).toBe(Math.max(...observed));
    groups.push(group);
    groups.sort();
    await expectColumnsEqualRecount();
  });
});

describe('group counts past 2^31', () => {
  it('saves and reads a group whose sessions count 3,000,000,000 messages (64-bit, REST and GraphQL)', async () => {
    const group = await createGroup(api, owner);
    for (let index = 0; index < 3; index += 1) {
      const saved = await rest(api, 'POST', sessionsPath(owner.orgKey), { token: owner.token, body: { id: crypto.randomUUID(), model: 'model-a', group_id: group.id, message_count: 1_000_000_000 } });
      expect(saved.status).toBe(201);
    }
    const read = await rest(api, 'GET', `${sessionsPath(owner.orgKey)}/groups/${group.id}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.message_count).toBe(3_000_000_000);
    const list = await rest(api, 'GET', `${sessionsPath(owner.orgKey)}/groups`, { token: owner.token });
    expect(list.status).toBe(200);
    const graphql = await gql(api, 'query ($org: String!, $id: UUID!) { session_group(org: $org, workspace: "default", group_id: $id) { message_count } }', { org: owner.orgKey, id: group.id }, owner.token);
    expect(graphql.body).toEqual({ data: { session_group: { message_count: 3_000_000_000 } } });
  });
});

describe('group counts under a recount racing a delta', () => {
  it('keeps a delta committed while a recount waited for the group row', async () => {
    const group = (await createGroup(api, owner, { kind: 'workflow' })).id;
    await saveSession(api, owner, { group_id: group });
    const [{ id: sessionId }] = await database().query<{ id: string }>('SELECT id FROM sessions WHERE group_id = $g', { bind: { g: group }, type: QueryTypes.SELECT });
    const first = await database().transaction();
    const second = await database().transaction();
    try {
      // T1: a second session joins the group and adds its delta, not yet committed.
      await database().query(
        `INSERT INTO sessions (id, organization_id, workspace_id, user_id, group_id, model)
         SELECT gen_random_uuid(), organization_id, workspace_id, user_id, group_id, model FROM sessions WHERE id = $id`,
        { bind: { id: sessionId }, transaction: first },
      );
      await addToGroupRollup(group, { sessions: 1, active: 1 }, first);
      // T2: a recount of the same group (as a delete or a move does) waits for T1's row lock.
      const recount = recountGroups([group], second);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.commit();
      await recount;
      await second.commit();
    } catch (error) {
      await Promise.allSettled([first.rollback(), second.rollback()]);
      throw error;
    }
    const [row] = await database().query<{ session_count: number }>('SELECT session_count FROM session_groups WHERE id = $g', {
      bind: { g: group },
      type: QueryTypes.SELECT,
    });
    expect(row.session_count).toBe(2);
  });
});

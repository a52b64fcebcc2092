import type { Client } from 'pg';
import { database } from '../../../src/db/database';
import { plainQuery, PREPARED_SHAPES } from '../../../src/db/hot';
import { createUser, type TestUser } from '../../factories/accounts';
import { saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useIsolatedTestApp } from '../../helpers/isolated-database';

/**
 * plainQuery `prepare`: a statement text becomes a named prepared statement,
 * parsed and planned once per connection (the session list's page was
 * re-planned on every request before). On its own database: it alters a
 * table and fills the process's quota of prepared texts.
 */
const api = useIsolatedTestApp();
let owner: TestUser;
const POOL = 3; // useIsolatedTestApp's poolMax

beforeAll(async () => {
  owner = await createUser();
  await saveSession(api, owner, { title: 'one' });
});

/** The prepared statements (name and text) of every pooled connection (all of them held at once, so each is a different one). */
async function preparedOnEachConnection(): Promise<{ name: string; statement: string }[][]> {
  const manager = database().connectionManager;
  const clients = (await Promise.all(Array.from({ length: POOL }, () => manager.getConnection({ type: 'read' })))) as unknown as Client[];
  try {
    return await Promise.all(clients.map(async (client) => (await client.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements')).rows));
  } finally {
    for (const client of clients) manager.releaseConnection(client as never);
  }
}

/**
 * The list over REST (the engine's compiled statement) and over GraphQL with a
 * field that has no SQL description (the resolvers' rows page, `to_json(s)`
 * and the joined rows as JSON).
 */
async function listSessions(times: number): Promise<void> {
  // Concurrent requests, so the statements reach several connections.
  const replies = await Promise.all(Array.from({ length: times }, () => rest(api, 'GET', sessionsPath(owner.orgKey), { token: owner.token })));
  expect(replies.map((reply) => [reply.status, reply.body.total, reply.body.sessions[0]?.title])).toEqual(replies.map(() => [200, 1, 'one']));
  const query = 'query($org: String!) { sessions(org: $org, workspace: "default") { total sessions { title project_key group { id } usage { total_message_count } messages { id } } } }';
  const viaGraphql = await Promise.all(Array.from({ length: times }, () => gql(api, query, { org: owner.orgKey }, owner.token)));
  expect(viaGraphql.map((reply) => reply.body)).toEqual(
    viaGraphql.map(() => ({ data: { sessions: { total: 1, sessions: [{ title: 'one', project_key: null, group: null, usage: { total_message_count: 0 }, messages: [] }] } } })),
  );
}

it('prepares the session list’s count and pages, the attack list and the trace statistics on the connections', async () => {
  const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
  const created = await rest(api, 'POST', base, { token: owner.token, body: { name: 'prepared' } });
  expect((await rest(api, 'POST', `${base}/${created.body.id}/traces/attacks`, { token: owner.token, body: { attacks: [{ attack_name: 'a', goal: 'g', goal_category: 'c' }] } })).status).toBe(201);
  for (const read of ['traces/attacks', 'traces', 'traces/attacks', 'traces']) {
    expect((await rest(api, 'GET', `${base}/${created.body.id}/${read}`, { token: owner.token })).status).toBe(200);
  }
  const statements = (await preparedOnEachConnection()).flat();
  // The attack list is the engine's streamed list root, prepared within the compiled statements' quota.
  const attackList = statements.some((row) => row.statement.startsWith('SELECT coalesce(') && row.statement.includes('AS item FROM (SELECT t0.* FROM airt_attack_spans t0'));
  expect([attackList, statements.some((row) => row.name === 'assessment-trace-stats')]).toEqual([true, true]);
  await listSessions(12);
  const prepared = (await preparedOnEachConnection()).flat().map((row) => row.statement);
  expect(prepared.some((statement) => statement.startsWith('SELECT count(*) AS total FROM sessions s'))).toBe(true);
  expect(prepared.some((statement) => statement.startsWith('SELECT CASE WHEN b.reply_bytes <= '))).toBe(true);
  expect(prepared.some((statement) => statement.startsWith('SELECT to_json(s) AS "s"'))).toBe(true);
});

it('keeps answering after the table gains a column (the prepared columns are JSON, a count and text)', async () => {
  // The hazard it avoids: a prepared `SELECT *` refuses to run once its table changes shape.
  const manager = database().connectionManager;
  const client = (await manager.getConnection({ type: 'read' })) as unknown as Client;
  try {
    await client.query({ name: 'star_probe', text: 'SELECT * FROM projects LIMIT 1' });
    await database().query('ALTER TABLE projects ADD COLUMN probe_column integer');
    await expect(client.query({ name: 'star_probe', text: 'SELECT * FROM projects LIMIT 1' })).rejects.toThrow(/cached plan must not change result type/);
  } finally {
    manager.releaseConnection(client as never);
  }
  await listSessions(6);
  await database().query('ALTER TABLE sessions ADD COLUMN probe_column integer');
  await listSessions(12);
  await database().query('ALTER TABLE sessions DROP COLUMN probe_column');
  await listSessions(6);
});

it(`prepares at most ${PREPARED_SHAPES} texts per process; later texts run unnamed, with the same results`, async () => {
  const texts = Array.from({ length: PREPARED_SHAPES + 20 }, (_, index) => `SELECT $value::int + ${index} AS sum`);
  for (const [index, text] of texts.entries()) {
    expect(await plainQuery<{ sum: number }>(text, { value: 1 }, { prepare: true })).toEqual([{ sum: 1 + index }]);
    expect(await plainQuery<{ sum: number }>(text, { value: 2 }, { prepare: true })).toEqual([{ sum: 2 + index }]);
  }
  // The prepared ones, over every connection, are exactly the first texts: as many as the quota had left.
  const all = new Set((await preparedOnEachConnection()).flat().map((row) => row.statement).filter((statement) => statement.includes('AS sum')));
  const first = texts.map((text) => text.replace('$value', '$1')).filter((text) => all.has(text));
  expect(first).toEqual(texts.slice(0, first.length).map((text) => text.replace('$value', '$1')));
  expect(first.length).toBeGreaterThan(PREPARED_SHAPES - 10); // the list's few texts took the rest of the quota
  expect(first.length).toBeLessThan(PREPARED_SHAPES);
  // Without `prepare` nothing is named.
  await plainQuery('SELECT $value::int AS unprepared_probe', { value: 1 });
  expect((await preparedOnEachConnection()).flat().some((row) => row.statement.includes('unprepared_probe'))).toBe(false);
});

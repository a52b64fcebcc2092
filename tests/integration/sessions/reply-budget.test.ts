import { QueryTypes } from 'sequelize';
import { config, overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { saveSession } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * What one request loads of transcripts is held to MAX_REPLY_BYTES (the
 * messages' stored sizes, `session_messages.bytes`, summed by PostgreSQL as
 * it reads them): a GraphQL document of aliased transcript reads is refused
 * with 422 reply_too_large once they come to more than one reply may hold,
 * before the rest are loaded, whatever fields it selects.
 */
const api = useTestApp();
let owner: TestUser;
let WS: string;
const before = config().MAX_REPLY_BYTES;
const statementBound = config().MAX_STATEMENT_READ_BYTES;
const LIMIT = 64 * 1024;
const sessions: string[] = [];

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  WS = `/org/${owner.orgKey}/ws/default/sessions`;
  // Three transcripts of ~40 KB: each fits the limit alone, no two together.
  for (let index = 0; index < 3; index += 1) {
    const session = await saveSession(api, owner);
    const messages = Array.from({ length: 20 }, (_, n) => ({ role: n % 2 ? 'assistant' : 'user', content: `${index}:${n}:${'x'.repeat(2000)}` }));
    expect((await rest(api, 'POST', `${WS}/${session.id}/transcript`, { token: owner.token, body: { messages } })).status).toBe(201);
    sessions.push(session.id);
  }
  overrideConfig({ MAX_REPLY_BYTES: LIMIT });
});
afterAll(() => overrideConfig({ MAX_REPLY_BYTES: before }));

const graphql = (query: string) => rest(api, 'POST', '/graphql', { token: owner.token, body: { query, variables: { org: owner.orgKey } } });
const aliased = (field: (id: string) => string) =>
  `query ($org: String!) { ${sessions.map((id, index) => `s${index}: ${field(id)}`).join(' ')} }`;

it('stores each message\'s size as its text (content, tool calls, metadata), as the transcript bound counts it', async () => {
  // Bytes, not characters; tool calls and metadata count; a message without content counts its other parts.
  const mixed = await saveSession(api, owner);
  const messages = [
    { role: 'user', content: 'héllo → 世界 🙂' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'bash', arguments: { cmd: 'ls -la', note: 'ü' } }], metadata: { k: 'v', n: 1 } },
    { role: 'tool', content: [{ type: 'text', text: 'résultat' }], tool_call_id: 'c1' },
  ];
  expect((await rest(api, 'POST', `${WS}/${mixed.id}/transcript`, { token: owner.token, body: { messages } })).status).toBe(201);
  for (const id of [mixed.id, sessions[0]]) await expectStoredSizes(id);
});

async function expectStoredSizes(id: string): Promise<void> {
  const [row] = await database().query<{ stored: number; counted: number; transcript: string }>(
    `SELECT sum(m.bytes)::int AS stored,
            sum(octet_length(coalesce(m.content::text, '')) + octet_length(coalesce(m.tool_calls::text, '')) + octet_length(coalesce(m.metadata::text, '')))::int AS counted,
            (SELECT transcript_bytes FROM sessions WHERE id = $id) AS transcript
       FROM session_messages m WHERE m.session_id = $id`,
    { type: QueryTypes.SELECT, bind: { id } },
  );
  expect(row.stored).toBeGreaterThan(0);
  expect(row.stored).toBe(row.counted);
  expect(String(row.transcript)).toBe(String(row.stored));
}

it('holds the messages of a list of sessions (one statement for them all) to the same budget', async () => {
  const res = await graphql(
    `query ($org: String!) { workspace(org: $org, workspace: "default") { sessions(limit: 5) { id messages(limit: 100) { seq } } } }`,
  );
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  overrideConfig({ MAX_REPLY_BYTES: 4 * LIMIT });
  try {
    const fits = await graphql(`query ($org: String!) { workspace(org: $org, workspace: "default") { sessions(limit: 5) { id messages(limit: 100) { seq } } } }`);
    expect(fits.body.errors).toBeUndefined();
    expect(fits.body.data.workspace.sessions.filter((session: { messages: unknown[] }) => session.messages.length === 20)).toHaveLength(3);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it('counts a root transcript read and the nested messages of one document against one budget', async () => {
  // Each fits alone (~40 KB; ~30 KB), not both.
  const nested = `w: workspace(org: $org, workspace: "default") { sessions(limit: 5) { id messages(limit: 5) { seq } } }`;
  expect((await graphql(`query ($org: String!) { ${nested} }`)).body.errors).toBeUndefined();
  const both = await graphql(
    `query ($org: String!) { a: session(org: $org, workspace: "default", session_id: "${sessions[0]}", limit: 1000) { events { seq } } ${nested} }`,
  );
  expect(both.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
});

it('reads each transcript alone, over REST and GraphQL', async () => {
  for (const id of sessions) {
    const res = await rest(api, 'GET', `${WS}/${id}?limit=1000`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.events).toHaveLength(20);
  }
  const one = await graphql(`query ($org: String!) { session(org: $org, workspace: "default", session_id: "${sessions[0]}", limit: 1000) { events { seq } } }`);
  expect(one.body.errors).toBeUndefined();
  expect(one.body.data.session.events).toHaveLength(20);
});

it.each([
  // session_transcript is non-null: a refused alias nulls the whole of `data`.
  ['session events', (id: string) => `session(org: $org, workspace: "default", session_id: "${id}", limit: 1000) { events { seq } }`, true],
  ['transcript pages', (id: string) => `session_transcript(org: $org, workspace: "default", session_id: "${id}", limit: 1000) { messages { seq } }`, false],
  ['trajectories', (id: string) => `session_trajectory(org: $org, workspace: "default", session_id: "${id}", format: "openai")`, true],
] as const)('reads aliased %s one after the other within MAX_REPLY_BYTES, refusing those past it with reply_too_large', async (_label, field, nullable) => {
  const res = await graphql(aliased(field));
  // One fits and is read (whichever comes first); each later one starts from what is left and is refused
  // (a refused non-null field ends the document: its error may be the only one).
  if (nullable) expect(res.body.errors).toHaveLength(2);
  else expect(res.body.errors.length).toBeGreaterThanOrEqual(1);
  for (const error of res.body.errors) {
    expect(error.extensions).toMatchObject({
      type: 'validation_error',
      status: 422,
      errors: [{ loc: ['body', 'query'], type: 'reply_too_large', msg: expect.stringContaining(String(LIMIT)) }],
    });
  }
  if (nullable) expect(Object.values(res.body.data).filter((value) => value !== null)).toHaveLength(1);
  else expect(res.body.data).toBeNull();
  // Two of them fit when MAX_REPLY_BYTES allows it.
  overrideConfig({ MAX_REPLY_BYTES: 4 * LIMIT });
  try {
    const fits = await graphql(aliased(field));
    expect(fits.body.errors).toBeUndefined();
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it('refuses one REST transcript page that loads more than MAX_REPLY_BYTES with 422 at the query', async () => {
  overrideConfig({ MAX_REPLY_BYTES: 16 * 1024 });
  try {
    const res = await rest(api, 'GET', `${WS}/${sessions[0]}/transcript?limit=1000`, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['query'], msg: expect.any(String), type: 'reply_too_large' }]);
    const page = await rest(api, 'GET', `${WS}/${sessions[0]}/transcript?limit=5`, { token: owner.token });
    expect(page.status).toBe(200);
    expect(page.body.messages).toHaveLength(5);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it("does not count a page's probe for more against the budget: a page that fits is 200 with has_more, whatever comes after it", async () => {
  const session = await saveSession(api, owner);
  const messages = [
    ...Array.from({ length: 5 }, (_, n) => ({ role: n % 2 ? 'assistant' : 'user', content: `${n}:${'s'.repeat(2000)}` })),
    { role: 'user', content: 'L'.repeat(30_000) },
  ];
  expect((await rest(api, 'POST', `${WS}/${session.id}/transcript`, { token: owner.token, body: { messages } })).status).toBe(201);
  overrideConfig({ MAX_REPLY_BYTES: 16 * 1024 });
  try {
    // No statement of the page's read brings the message after it back (it alone is over this bound).
    overrideConfig({ MAX_STATEMENT_READ_BYTES: 24 * 1024 });
    const page = await rest(api, 'GET', `${WS}/${session.id}/transcript?limit=5`, { token: owner.token });
    expect(page.status).toBe(200);
    expect(page.body.messages).toHaveLength(5);
    expect(page.body.has_more).toBe(true);
    overrideConfig({ MAX_STATEMENT_READ_BYTES: statementBound });
    // The large message itself does not fit: asking for it is refused.
    const whole = await rest(api, 'GET', `${WS}/${session.id}/transcript?limit=6`, { token: owner.token });
    expect(whole.status).toBe(422);
    expect(whole.body.errors[0].type).toBe('reply_too_large');
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT, MAX_STATEMENT_READ_BYTES: statementBound });
  }
});

import { QueryTypes } from 'sequelize';
import { config, overrideConfig } from '../../../src/config/config';
import { toAppError } from '../../../src/core/errors';
import { database } from '../../../src/db/database';
import { StatementReadTooLarge } from '../../../src/db/driver-errors';
import { plainQuery } from '../../../src/db/hot';
import { maxStatementReadBytes } from '../../../src/db/read-bound';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { defaultProject } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { countStatements } from '../../helpers/statements';
import { createApiKey } from '../../factories/api-keys';
import { publishTask } from '../../factories/catalogs';
import crypto from 'node:crypto';

/**
 * No statement brings back more than MAX_STATEMENT_READ_BYTES
 * (db/read-bound.ts): past it, its later rows are dropped as they arrive and
 * it fails, answered 422 reply_too_large. It bounds the reads that are not
 * held to the request's reply budget as they load: a list that loads whole
 * rows of large columns it does not return, whichever way it was sent
 * (Sequelize, plainQuery).
 */
const api = useTestApp();
let owner: TestUser;
let WS: string;
const before = config().MAX_STATEMENT_READ_BYTES;
afterEach(() => overrideConfig({ MAX_STATEMENT_READ_BYTES: before }));

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  WS = `/org/${owner.orgKey}/ws/default`;
  const project = await defaultProject(owner.orgKey);
  // Ten session groups with ~20 KB of metadata each, which no reply returns (~200 KB read by a list of them).
  for (let index = 0; index < 10; index += 1) {
    const res = await rest(api, 'POST', `${WS}/sessions/groups`, {
      token: owner.token,
      body: { kind: 'worker_run', project_id: project.id, title: `g${index}`, metadata: { blob: 'm'.repeat(20_000) } },
    });
    expect(res.status).toBe(201);
  }
});

it('is MAX_STATEMENT_READ_BYTES, 128 MiB unless set', () => {
  expect(before).toBe(128 * 1024 * 1024);
  overrideConfig({ MAX_STATEMENT_READ_BYTES: 64 * 1024 });
  expect(maxStatementReadBytes()).toBe(64 * 1024);
});

it('fails a statement whose rows pass it (plainQuery and Sequelize alike), and the connection serves the next one', async () => {
  overrideConfig({ MAX_STATEMENT_READ_BYTES: 64 * 1024 });
  const big = `SELECT n, repeat('x', 10000) AS text FROM generate_series(1, 100) AS n`;
  await expect(plainQuery(big, {})).rejects.toBeInstanceOf(StatementReadTooLarge);
  const viaSequelize = await database().query(big, { type: QueryTypes.SELECT }).then(() => null, (error: unknown) => error);
  expect(toAppError(viaSequelize).appError).toMatchObject({ status: 422, errors: [{ loc: ['query'], type: 'reply_too_large', msg: expect.stringContaining(String(64 * 1024)) }] });
  expect(toAppError(viaSequelize, 'graphql').appError).toMatchObject({ errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  // Within it, afterwards: read whole (the refused statements' connections stay in the pool: they ended normally).
  const fits = await plainQuery<{ n: number }>(`SELECT n, repeat('x', 1000) AS text FROM generate_series(1, 50) AS n`, {});
  expect(fits).toHaveLength(50);
  expect(await database().query(`SELECT 1 AS one`, { type: QueryTypes.SELECT })).toEqual([{ one: 1 }]);
});

it('answers a list that would load more than it, whatever it returns, with 422 reply_too_large over REST and GraphQL', async () => {
  const list = await rest(api, 'GET', `${WS}/sessions/groups`, { token: owner.token, query: { limit: 100 } });
  expect(list.status).toBe(200);
  overrideConfig({ MAX_STATEMENT_READ_BYTES: 64 * 1024 });
  const refused = await rest(api, 'GET', `${WS}/sessions/groups`, { token: owner.token, query: { limit: 100 } });
  expect(refused.status).toBe(422);
  expect(refused.body.errors).toEqual([{ loc: ['query'], msg: expect.any(String), type: 'reply_too_large' }]);
  const graphql = await gql(api, `query ($org: String!) { session_groups(org: $org, workspace: "default", limit: 100) { total } }`, { org: owner.orgKey }, owner.token);
  expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  // A page within it is read.
  const page = await rest(api, 'GET', `${WS}/sessions/groups`, { token: owner.token, query: { limit: 2 } });
  expect(page.status).toBe(200);
});

/** A trace of 20 spans, each with a 5,000-character attribute, sent over OTLP/JSON: its id. */
async function sendTrace(): Promise<string> {
  const key = (await createApiKey(api, owner)).key;
  const traceId = crypto.randomBytes(16).toString('hex');
  const start = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: 20 }, (_, index) => ({
    traceId,
    spanId: crypto.randomBytes(8).toString('hex'),
    name: `s${index}`,
    kind: 1,
    startTimeUnixNano: String(start + BigInt(index)),
    endTimeUnixNano: String(start + BigInt(index) + 1_000_000n),
    attributes: [{ key: 'blob', value: { stringValue: 'b'.repeat(5000) } }],
  }));
  const sent = await rest(api, 'POST', `/org/${owner.orgKey}/otel/traces`, { headers: { 'x-api-key': key }, body: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] } });
  expect(sent.status).toBe(200);
  return traceId;
}

it('answers a compiled GraphQL reply past it with 422 at once, without reading it again through the resolvers', async () => {
  const traceId = await sendTrace();
  const query = `query ($org: String!) { trace_spans(org: $org, workspace: "default", trace_id: "${traceId}", limit: 100) { rows data { attributes } } }`;
  expect((await gql(api, query, { org: owner.orgKey }, owner.token)).body.data.trace_spans.rows).toBe(20);
  // ~100 KB in the one compiled row, over a 64 KiB bound.
  overrideConfig({ MAX_STATEMENT_READ_BYTES: 64 * 1024 });
  const refused = await countStatements(() => gql(api, query, { org: owner.orgKey }, owner.token));
  expect(refused.result.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  // The compiled statement was the last: the resolvers' window read (cut at the reply budget, y.loaded) never ran.
  expect(refused.statements.at(-1)).toContain('compiled_share');
  expect(refused.statements.some((sql) => sql.includes('y.loaded'))).toBe(false);
});

it('answers a compiled GraphQL reply past MAX_REPLY_BYTES with its size, measured by PostgreSQL: the reply is never sent to the worker', async () => {
  // Twenty aliases of a task list holding one task with a 500-character description: about 11 KB of replies in the one compiled row.
  const description = 'd'.repeat(500);
  const name = `long-description-${crypto.randomBytes(3).toString('hex')}`;
  await publishTask(api, owner, { name, description });
  const aliases = Array.from({ length: 20 }, (_, index) => `g${index}: tasks(org: $org, search: "${name}") { tasks { description } }`);
  const query = `query ($org: String!) { ${aliases.join(' ')} }`;
  const replyBefore = config().MAX_REPLY_BYTES;
  overrideConfig({ MAX_REPLY_BYTES: 4096, MAX_STATEMENT_READ_BYTES: 6144 });
  try {
    const refused = await countStatements(() => gql(api, query, { org: owner.orgKey }, owner.token));
    const [item] = refused.result.body.errors![0].extensions.errors;
    // Had the row come back, it would have passed the read bound first ("reads more than …").
    expect(item).toEqual({ loc: ['body', 'query'], msg: expect.stringMatching(/^The reply would be \d+ bytes, over the limit of 4096;/), type: 'reply_too_large' });
    expect(Number(/would be (\d+)/.exec(item.msg)![1])).toBeGreaterThan(10_000);
    expect(refused.statements.at(-1)).toContain('reply_bytes');
    // Within it, the same query is answered.
    overrideConfig({ MAX_REPLY_BYTES: 64 * 1024, MAX_STATEMENT_READ_BYTES: 128 * 1024 });
    const answered = await gql(api, query, { org: owner.orgKey }, owner.token);
    expect(answered.body.errors).toBeUndefined();
    expect(answered.body.data.g19.tasks).toEqual([{ description }]);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: replyBefore });
  }
});

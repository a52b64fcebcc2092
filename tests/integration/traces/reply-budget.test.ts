import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { config, overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { plainQuery } from '../../../src/db/hot';
import { loadedBytes, withinBudgetSql } from '../../../src/core/reply-budget';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { gql, rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

/**
 * What one request loads of spans is held to MAX_REPLY_BYTES: each span
 * stores its size (`spans.bytes`, written by the ingest), and every read of
 * span rows (a window of a trace, the spans of many traces in GraphQL) is
 * cut by PostgreSQL where their sizes pass what the request may still load,
 * before it builds them; past it, 422 reply_too_large.
 */
const api = useTestApp();
let owner: TestUser;
let key: string;
let WS: string;
const before = config().MAX_REPLY_BYTES;
const LIMIT = 64 * 1024;
const hex = (bytes: number) => crypto.randomBytes(bytes).toString('hex');

/** Three traces of four spans of ~8 KB (each trace fits LIMIT alone, no two together), and a small one. */
const large: string[] = [];
let small: string;

function span(traceId: string, attributes: Record<string, string>, spanId = hex(8), parentSpanId?: string, offsetMs = 0) {
  const start = BigInt(Date.now() + offsetMs) * 1_000_000n;
  return {
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name: 'step',
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 5_000_000n),
    attributes: Object.entries(attributes).map(([name, value]) => ({ key: name, value: { stringValue: value } })),
    status: { code: 1 },
  };
}
const exportOf = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'budget' } }] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] });
async function send(spans: unknown[]) {
  const res = await rest(api, 'POST', `/org/${owner.orgKey}/otel/traces`, { headers: { 'x-api-key': key }, body: exportOf(spans) });
  expect(res.status).toBe(200);
  expect(res.body.rejected).toBe(0);
}
function trace(payload: string): unknown[] {
  const traceId = hex(16);
  const root = span(traceId, { payload });
  return [root, ...[1, 2, 3].map((n) => span(traceId, { payload }, hex(8), root.spanId, n))];
}
const spansOf = (traceId: string, limit = 1000) => rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token, query: { limit } });
const graphql = (query: string) => gql(api, query, { org: owner.orgKey }, owner.token);
const spansField = (traceId: string) => `trace_spans(org: $org, workspace: "default", trace_id: "${traceId}", limit: 1000) { rows data { span_id } }`;
const storedBytes = async (traceId: string) =>
  database().query<{ span_id: string; bytes: number | null; text_bytes: number }>(
    `SELECT span_id, bytes, octet_length(attributes::text) AS text_bytes FROM spans WHERE trace_id = $trace ORDER BY start_time, span_id`,
    { type: QueryTypes.SELECT, bind: { trace: traceId } },
  );

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  key = (await createApiKey(api, owner)).key;
  WS = `/org/${owner.orgKey}/ws/default`;
  for (let index = 0; index < 3; index += 1) {
    const spans = trace('é'.repeat(4000));
    await send(spans);
    large.push((spans[0] as { traceId: string }).traceId);
  }
  const tiny = trace('ok');
  await send(tiny);
  small = (tiny[0] as { traceId: string }).traceId;
  overrideConfig({ MAX_REPLY_BYTES: LIMIT });
});
afterAll(() => overrideConfig({ MAX_REPLY_BYTES: before }));

it('sends the rows within the budget and the first one past it, no more, in order, each with its running size (withinBudgetSql)', async () => {
  const rows = `SELECT v.id, v.size FROM (VALUES (1, 10), (2, 10), (3, 10), (4, 10), (5, 10)) AS v(id, size)`;
  const read = (budget: number, order: string[]) => plainQuery<{ id: number; loaded: string }>(withinBudgetSql(rows, order), { budget });
  expect((await read(25, ['id'])).map((row) => [row.id, Number(row.loaded)])).toEqual([[1, 10], [2, 20], [3, 30]]);
  expect((await read(15, ['id DESC'])).map((row) => row.id)).toEqual([5, 4]);
  expect((await read(1000, ['id'])).map((row) => row.id)).toEqual([1, 2, 3, 4, 5]);
  // The first row alone passes it: sent (the load is refused by its size), and nothing after it.
  expect((await read(5, ['id'])).map((row) => row.id)).toEqual([1]);
  expect(loadedBytes((await read(25, ['id'])).map((row) => row.loaded))).toBe(30);
});

it('stores each span\'s size in bytes, the same whether the export was written by COPY or, retried, by INSERT', async () => {
  const traceId = hex(16);
  const first = span(traceId, { payload: 'ü'.repeat(1000), ascii: 'x'.repeat(500) });
  await send([first]);
  // The same span again beside a new one of the same shape: the COPY meets the stored key, and the export is written by INSERT … ON CONFLICT.
  await send([first, span(traceId, { payload: 'ü'.repeat(1000), ascii: 'x'.repeat(500) })]);
  const rows = await storedBytes(traceId);
  expect(rows).toHaveLength(2);
  // UTF-8 bytes (2 per ü), more than the attributes' own text, and equal for two spans of one shape however written.
  expect(rows[0].bytes).toBeGreaterThan(rows[0].text_bytes);
  expect(rows[0].text_bytes).toBeGreaterThan(2500);
  expect(rows[1].bytes).toBe(rows[0].bytes);
});

it('refuses a window of spans whose sizes pass MAX_REPLY_BYTES with 422 at the query, and reads a smaller one', async () => {
  overrideConfig({ MAX_REPLY_BYTES: 16 * 1024 });
  try {
    const res = await spansOf(large[0]);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['query'], msg: expect.stringContaining('16384'), type: 'reply_too_large' }]);
    const one = await spansOf(large[0], 1);
    expect(one.status).toBe(200);
    expect(one.body.rows).toBe(1);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it('cuts by the stored sizes, before PostgreSQL builds the spans: over REST, GraphQL and GraphQL navigation', async () => {
  // The small trace's last span says it is a gigabyte: every read that would load it is refused, one that stops before it is read.
  const last = (await storedBytes(small)).at(-1)!;
  await database().query('UPDATE spans SET bytes = 1000000000 WHERE trace_id = $trace AND span_id = $span', { bind: { trace: small, span: last.span_id } });
  try {
    expect((await spansOf(small)).body.errors?.[0]?.type).toBe('reply_too_large');
    expect((await spansOf(small, 3)).body.rows).toBe(3);
    const one = await graphql(`query ($org: String!) { ${spansField(small)} }`);
    expect(one.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
    const nested = await graphql(`query ($org: String!) { workspace(org: $org, workspace: "default") { traces(limit: 10) { trace_id spans(limit: 10) { span_id } } } }`);
    expect(nested.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  } finally {
    await database().query('UPDATE spans SET bytes = $bytes WHERE trace_id = $trace AND span_id = $span', { bind: { trace: small, span: last.span_id, bytes: last.bytes } });
  }
  expect((await spansOf(small)).body.rows).toBe(4);
});

it('measures a span stored before sizes were kept (no `bytes`) by its text as it reads it', async () => {
  await database().query('UPDATE spans SET bytes = NULL WHERE trace_id = $trace', { bind: { trace: large[1] } });
  overrideConfig({ MAX_REPLY_BYTES: 16 * 1024 });
  try {
    expect((await spansOf(large[1])).body.errors?.[0]?.type).toBe('reply_too_large');
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
    expect((await spansOf(large[1])).body.rows).toBe(4);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it('answers a small window in the compiled statement and leaves one past its share of MAX_REPLY_BYTES to the resolvers, which read it whole', async () => {
  const compiled = await countStatements(() => graphql(`query ($org: String!) { ${spansField(small)} }`));
  expect(compiled.result.body.data.trace_spans.rows).toBe(4);
  expect(compiled.statements.some((sql) => sql.includes('compiled_share'))).toBe(true);
  expect(compiled.statements.some((sql) => sql.includes('y.loaded'))).toBe(false);
  // ~33 KB: more than a compiled root's share (MAX_REPLY_BYTES over the roots a document may hold), within MAX_REPLY_BYTES.
  const whole = await countStatements(() => graphql(`query ($org: String!) { ${spansField(large[2])} }`));
  expect(whole.result.body.errors).toBeUndefined();
  expect(whole.result.body.data.trace_spans.rows).toBe(4);
  expect(whole.statements.some((sql) => sql.includes('y.loaded'))).toBe(true);
});

it('reads aliased windows one after the other within MAX_REPLY_BYTES, refusing the one past it', async () => {
  const res = await graphql(`query ($org: String!) { a: ${spansField(large[0])} b: ${spansField(large[2])} }`);
  // trace_spans is non-null: the refused alias nulls `data`.
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors![0].extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  overrideConfig({ MAX_REPLY_BYTES: 4 * LIMIT });
  try {
    const fits = await graphql(`query ($org: String!) { a: ${spansField(large[0])} b: ${spansField(large[2])} }`);
    expect(fits.body.errors).toBeUndefined();
    expect([fits.body.data.a.rows, fits.body.data.b.rows]).toEqual([4, 4]);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it('counts a root read and the nested spans of one document against one budget', async () => {
  // Each fits alone (~33 KB; ~57 KB), not both.
  const nested = `w: workspace(org: $org, workspace: "default") { traces(limit: 10) { trace_id spans(limit: 2) { span_id } } }`;
  expect((await graphql(`query ($org: String!) { ${nested} }`)).body.errors).toBeUndefined();
  const both = await graphql(`query ($org: String!) { a: ${spansField(large[0])} ${nested} }`);
  expect(both.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
});

it('holds the spans of many traces (one statement for them all) to the same budget', async () => {
  const query = `query ($org: String!) { workspace(org: $org, workspace: "default") { traces(limit: 10) { trace_id spans(limit: 10) { span_id } } } }`;
  const res = await graphql(query);
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  overrideConfig({ MAX_REPLY_BYTES: 4 * LIMIT });
  try {
    const fits = await graphql(query);
    expect(fits.body.errors).toBeUndefined();
    const counts = Object.fromEntries(fits.body.data.workspace.traces.map((item: { trace_id: string; spans: unknown[] }) => [item.trace_id, item.spans.length]));
    for (const traceId of [...large, small]) expect(counts[traceId]).toBe(4);
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

it("holds an assessment's trials (each may carry an attribute's length of candidate and response) to the same budget", async () => {
  const assessment = (await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Large trials' } })).body.id;
  const traceId = hex(16);
  const study = span(traceId, { 'dreadnode.type': 'study', 'dreadnode.airt.assessment_id': assessment, 'dreadnode.airt.attack_name': 'tap' });
  const trials = [1, 2, 3, 4].map((n) =>
    span(traceId, { 'dreadnode.type': 'trial', 'dreadnode.airt.candidate': `${n}${'c'.repeat(6000)}`, 'dreadnode.airt.response': 'r'.repeat(6000) }, hex(8), study.spanId, n),
  );
  await send([study, ...trials]);
  const path = `${WS}/airt/assessments/${assessment}/traces/trials`;
  const field = (limit: number) => `assessment_trials(org: $org, workspace: "default", assessment_id: "${assessment}", limit: ${limit}) { candidate }`;
  overrideConfig({ MAX_REPLY_BYTES: 32 * 1024 });
  try {
    const all = await rest(api, 'GET', path, { token: owner.token, query: { limit: 100 } });
    expect(all.status).toBe(422);
    expect(all.body.errors).toEqual([{ loc: ['query'], msg: expect.any(String), type: 'reply_too_large' }]);
    const two = await rest(api, 'GET', path, { token: owner.token, query: { limit: 2 } });
    expect(two.status).toBe(200);
    expect(two.body.map((trial: { candidate: string }) => trial.candidate[0])).toEqual(['1', '2']);
    // Two aliased pages of ~24 KB: the first is read, the second (from what is left) refused before it loads.
    const aliased = await graphql(`query ($org: String!) { a: ${field(2)} b: ${field(2)} }`);
    expect(aliased.status).toBe(200);
    expect(aliased.body.errors).toHaveLength(1);
    expect(aliased.body.errors![0].extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
  } finally {
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
  }
});

describe('attack spans and trace roots', () => {
  let assessment: string;
  beforeAll(async () => {
    assessment = (await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Large attacks' } })).body.id;
    // Four attacks of ~12 KB (goal, best candidate and response may each be an attribute's length when derived from spans).
    const attacks = [1, 2, 3, 4].map((n) => ({ attack_name: `a${n}`, goal: 'g'.repeat(4000), goal_category: 'prompt_leak', best_candidate: 'c'.repeat(4000), best_response: 'r'.repeat(4000) }));
    const res = await rest(api, 'POST', `${WS}/airt/assessments/${assessment}/traces/attacks`, { token: owner.token, body: { attacks } });
    expect(res.status).toBe(201);
  });
  const attacksField = (alias: string, limit: number) => `${alias}: assessment_attacks(org: $org, workspace: "default", assessment_id: "${assessment}", limit: ${limit}) { attack_name }`;

  it("reads an assessment's attacks in GraphQL within the budget: aliased windows take turns, one past it is refused", async () => {
    overrideConfig({ MAX_REPLY_BYTES: 32 * 1024 });
    try {
      const two = await graphql(`query ($org: String!) { ${attacksField('a', 2)} }`);
      expect(two.body.errors).toBeUndefined();
      expect(two.body.data.a.map((item: { attack_name: string }) => item.attack_name)).toEqual(['a1', 'a2']);
      const aliased = await graphql(`query ($org: String!) { ${attacksField('a', 2)} ${attacksField('b', 2)} }`);
      expect(aliased.status).toBe(200);
      expect(aliased.body.errors).toHaveLength(1);
      expect(aliased.body.errors![0].extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
      // Nested under the assessment (one statement for every assessment of the page): each fits alone (~24 KB), not with the list beside it.
      const nested = `a: assessment(org: $org, workspace: "default", assessment_id: "${assessment}") { attacks(limit: 2) { attack_name } }`;
      expect((await graphql(`query ($org: String!) { ${nested} }`)).body.errors).toBeUndefined();
      const both = await graphql(`query ($org: String!) { ${nested} ${attacksField('b', 2)} }`);
      expect(both.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
    } finally {
      overrideConfig({ MAX_REPLY_BYTES: LIMIT });
    }
  });

  it('answers a window within its share of MAX_REPLY_BYTES in the compiled statement, and a larger one by the resolvers, alike', async () => {
    const query = `query ($org: String!) { ${attacksField('a', 100)} }`;
    // 64 KiB over 31 roots: a share of ~2 KB, under the ~48 KB list; 8 MiB: ~270 KB, over it.
    overrideConfig({ MAX_REPLY_BYTES: 64 * 1024 });
    const resolved = await countStatements(() => graphql(query));
    overrideConfig({ MAX_REPLY_BYTES: 8 * 1024 * 1024 });
    const compiled = await countStatements(() => graphql(query));
    overrideConfig({ MAX_REPLY_BYTES: LIMIT });
    expect(resolved.result.body.errors).toBeUndefined();
    expect(compiled.result.body).toEqual(resolved.result.body);
    expect(compiled.result.body.data.a).toHaveLength(4);
    // The resolvers' read is the one cut at the budget (y.loaded); the compiled statement answered alone.
    expect(resolved.statements.some((sql) => sql.includes('y.loaded'))).toBe(true);
    expect(compiled.statements.some((sql) => sql.includes('y.loaded'))).toBe(false);
    expect(compiled.statements.some((sql) => sql.includes('array_to_json'))).toBe(true);
    // An empty window (past the end) is answered by the compiled statement too.
    const empty = await countStatements(() => graphql(`query ($org: String!) { a: assessment_attacks(org: $org, workspace: "default", assessment_id: "${assessment}", offset: 100) { attack_name } }`));
    expect(empty.result.body.data.a).toEqual([]);
    expect(empty.statements.some((sql) => sql.includes('y.loaded'))).toBe(false);
  });

  it("counts each trace's root (its attributes) against the budget: aliased reads past it are refused", async () => {
    overrideConfig({ MAX_REPLY_BYTES: 20 * 1024 });
    try {
      const one = await graphql(`query ($org: String!) { a: trace(org: $org, workspace: "default", trace_id: "${large[0]}") { trace_id } }`);
      expect(one.body.errors).toBeUndefined();
      const three = await graphql(
        `query ($org: String!) { ${large.map((id, index) => `t${index}: trace(org: $org, workspace: "default", trace_id: "${id}") { trace_id }`).join(' ')} }`,
      );
      expect(three.status).toBe(200);
      expect(three.body.errors?.length).toBeGreaterThanOrEqual(1);
      expect(three.body.errors![0].extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
    } finally {
      overrideConfig({ MAX_REPLY_BYTES: LIMIT });
    }
  });
});

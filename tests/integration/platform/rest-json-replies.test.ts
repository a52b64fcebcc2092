import crypto from 'node:crypto';
import { print } from 'graphql';
import { config, overrideConfig } from '../../../src/config/config';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { catalogName, publishDataset, publishTask } from '../../factories/catalogs';
import { appendMessages, createGroup, ESCAPED_GROUP, ESCAPED_SESSION, createProject, saveSession, sessionsPath } from '../../factories/sessions';
import { database } from '../../../src/db/database';
import { STREAM_CHUNK_CHARS } from '../../../src/http/respond';
import { createEngine } from '../../../src/core/graphql-sql/engine';
import { createRestRouter, type RestPlan } from '../../../src/http/rest-routes';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { countStatements } from '../../helpers/statements';

/**
 * Routes whose REST reply PostgreSQL builds (the engine's compiled statement)
 * run no resolver, so nothing but this file keeps them
 * equal to them: each one's reply must equal the data of the resolvers
 * executing the route's own document through /graphql (GRAPHQL_SQL off), on
 * data that covers every shape of its type.
 */
const api = useTestApp();
let owner: TestUser;
let plans: Map<string, RestPlan>;

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  plans = createRestRouter(api.app.schema, createEngine(api.app.schema)).plans;
});

/** The route's reply beside its document run through GraphQL with the same arguments. */
async function bothWays(key: string, path: string, variables: Record<string, unknown>, query: Record<string, string | number | boolean | string[]> = {}, user = owner) {
  const plan = plans.get(key)!;
  const { result: viaRest, statements } = await countStatements(() => rest(api, 'GET', path, { token: user.token, query }));
  // A route the engine compiles is answered by its compiled statement, last (a failing one is followed by the resolvers'):
  // its elements as they come, or its reply measured (compile.ts REPLY_BYTES).
  if (plan.field.extensions.sqlRoot) expect(statements[statements.length - 1]).toMatch(/^SELECT (coalesce\(.* AS item FROM |CASE WHEN b\.reply_bytes <= )/s);
  // The reference is the resolvers' answer: GraphQL with the SQL engine path off.
  const enabled = config().GRAPHQL_SQL;
  overrideConfig({ GRAPHQL_SQL: false });
  let viaGraphql: Awaited<ReturnType<typeof gql>>;
  try {
    viaGraphql = await gql(api, print(plan.document), { ...variables, ...query }, user.token);
  } finally {
    overrideConfig({ GRAPHQL_SQL: enabled });
  }
  expect([viaRest.status, viaRest.status === 200 ? null : viaRest.body]).toEqual([200, null]);
  expect(viaGraphql.body.errors).toBeUndefined();
  return { rest: viaRest.body, graphql: (viaGraphql.body.data as Record<string, unknown>)[plan.fieldName] };
}

it('lists every route that has a PostgreSQL-built reply; each has a comparison below', () => {
  // Answered by the engine's compiled statement (compared below with the resolvers' answer, GRAPHQL_SQL off).
  const compiled = Object.values(api.app.schema.getQueryType()!.getFields()).filter((field) => field.extensions.sqlRoot && field.extensions.rest);
  expect(compiled.map((field) => field.name).sort()).toEqual(['assessment_analytics', 'assessment_attacks', 'datasets', 'session', 'sessions', 'tasks', 'trace_spans', 'workspace']);
  expect(plans.size).toBeGreaterThan(compiled.length);
});

describe('Query.assessment_attacks (GET …/traces/attacks)', () => {
  const spans = [
    { attack_name: 'pair', goal: 'g', goal_category: 'prompt_leak' },
    {
      attack_name: 'tap',
      goal: 'leak "the" prompt\n\t\u0001 ünïcødé 🚀',
      goal_category: 'harm',
      asr: 0.1,
      attacker_model: 'a',
      target_model: 't',
      evaluator_model: 'e',
      best_candidate: 'c',
      best_candidate_parts: [
        { kind: 'text', text: 'hi' },
        { kind: 'image', caption: 'cap', transform: 'base64', variant: 'v', source: { url: 'https://example.test/a.png', media_type: 'image/png' } },
        { kind: 'file', source: { ref: 'file_id', file_id: 'f-1', filename: 'a.txt', byte_size: 9007199254740991, detail: 'd', artifact_oid: 'oid' } },
        { kind: 'audio', source: {} },
      ],
      best_response: 'r',
      best_response_parts: [],
      best_modality_scores: { text: 0.25, image: 1e-7, audio: 3 },
      best_score: 9.75,
      category: 'jailbreak',
      sub_category: 'roleplay',
      execution_time_s: 12345.678,
      finished_trials: 3,
      total_trials: 1000000,
      is_jailbreak: true,
      span_id: 's',
      trace_id: 't',
      transforms: ['base64', 'leet'],
    },
    { attack_name: 'crescendo', goal: 'g3', goal_category: 'harm', asr: 1, best_score: 1e-9, execution_time_s: 0.30000000000000004, best_candidate_parts: [{ kind: 'text', text: null }] },
  ];

  it('equals executing the route’s document, for stored reply texts and for spans built on the fly', async () => {
    const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
    const created = await rest(api, 'POST', base, { token: owner.token, body: { name: 'shapes' } });
    const id = created.body.id as string;
    const ingested = await rest(api, 'POST', `${base}/${id}/traces/attacks`, { token: owner.token, body: { attacks: spans } });
    expect([ingested.status, ingested.body.errors]).toEqual([201, undefined]);
    const path = `${base}/${id}/traces/attacks`;
    const variables = { org: owner.orgKey, workspace: 'default', assessment_id: id };

    const stored = await bothWays('Query.assessment_attacks', path, variables);
    expect(stored.rest).toHaveLength(3);
    // Under one chunk, the reply goes out whole with its length.
    const small = await rest(api, 'GET', path, { token: owner.token, headers: { 'accept-encoding': 'identity' } });
    expect([small.headers.get('content-length'), small.headers.get('transfer-encoding')]).toEqual([String(Buffer.byteLength(small.text)), null]);
    expect(stored.rest).toEqual(stored.graphql);
    expect(stored.rest[1].best_candidate_parts[2].source).toEqual({
      ref: 'file_id', artifact_oid: 'oid', byte_size: 9007199254740991, detail: 'd', file_id: 'f-1', filename: 'a.txt', media_type: null, url: null,
    });
    expect((await bothWays('Query.assessment_attacks', path, variables, { limit: 1, offset: 1 })).rest).toEqual([stored.rest[1]]);
    expect((await bothWays('Query.assessment_attacks', path, variables, { offset: 3 })).rest).toEqual([]);

    // Spans ingested before reply texts were stored, or stored under an older shape: built on the fly, never served stale.
    await database().query(`UPDATE airt_attack_spans SET reply_json = NULL, reply_version = NULL WHERE assessment_id = $id AND seq = 1`, { bind: { id } });
    await database().query(`UPDATE airt_attack_spans SET reply_json = '{"stale":true}', reply_version = 0 WHERE assessment_id = $id AND seq = 3`, { bind: { id } });
    const onTheFly = await bothWays('Query.assessment_attacks', path, variables);
    expect(onTheFly.rest).toEqual(onTheFly.graphql);
    expect(onTheFly.rest).toEqual(stored.rest);

    // A current stored text is what the route sends (the whole type is selected); a GraphQL query of some fields builds its own.
    await database().query(
      `UPDATE airt_attack_spans SET reply_json = replace(reply_json, '"attack_name":"tap"', '"attack_name":"from the stored text"') WHERE assessment_id = $id AND seq = 2`,
      { bind: { id } },
    );
    expect((await rest(api, 'GET', path, { token: owner.token })).body[1]).toEqual({ ...stored.rest[1], attack_name: 'from the stored text' });
    const some = await gql(api, `query($org: String!, $id: UUID!) { assessment_attacks(org: $org, workspace: "default", assessment_id: $id) { attack_name goal } }`, { org: owner.orgKey, id }, owner.token);
    expect((some.body.data as any).assessment_attacks[1]).toEqual({ attack_name: 'tap', goal: spans[1].goal });
  });

  it('a list larger than one chunk is written as PostgreSQL sends it, and still equals executing the document', async () => {
    const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
    const id = (await rest(api, 'POST', base, { token: owner.token, body: { name: 'streamed' } })).body.id as string;
    const path = `${base}/${id}/traces/attacks`;
    const many = Array.from({ length: 1000 }, (_, index) => ({ ...spans[index % spans.length], span_id: `span-${index}` }));
    for (let batch = 0; batch < 2; batch += 1) {
      const ingested = await rest(api, 'POST', path, { token: owner.token, body: { attacks: many } });
      expect([ingested.status, ingested.body.errors]).toEqual([201, undefined]);
    }
    // Some spans built on the fly, between stored ones.
    await database().query(`UPDATE airt_attack_spans SET reply_json = NULL, reply_version = NULL WHERE assessment_id = $id AND seq % 7 = 0`, { bind: { id } });
    const variables = { org: owner.orgKey, workspace: 'default', assessment_id: id };

    const streamed = await rest(api, 'GET', path, { token: owner.token });
    expect(streamed.text.length).toBeGreaterThan(STREAM_CHUNK_CHARS * 4);
    expect([streamed.headers.get('transfer-encoding'), streamed.headers.get('content-length')]).toEqual(['chunked', null]);
    expect([streamed.headers.get('x-total-count'), streamed.headers.get('x-request-id')]).toEqual(['2000', expect.any(String)]);
    const both = await bothWays('Query.assessment_attacks', path, variables);
    expect(both.rest).toHaveLength(2000);
    expect(both.rest).toEqual(both.graphql);
    expect(both.rest.map((span: { span_id: string }) => span.span_id)).toEqual([...many, ...many].map((span) => span.span_id));
    const window = await bothWays('Query.assessment_attacks', path, variables, { limit: 1500, offset: 400 });
    expect(window.rest).toEqual(both.rest.slice(400, 1900));
  });

  it('the analytics equal executing the route’s document, before any span and after, and answer 404 and 422 as it does', async () => {
    const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
    const created = await rest(api, 'POST', base, { token: owner.token, body: { name: 'analytics shapes' } });
    const id = created.body.id as string;
    const path = `${base}/${id}/analytics`;
    const variables = { org: owner.orgKey, workspace: 'default', assessment_id: id };
    const empty = await bothWays('Query.assessment_analytics', path, variables);
    expect(empty.rest).toEqual({ risk_score: null, overall_asr: null, total_attacks: 0, total_trials: 0, analytics_snapshot: null });
    expect(empty.rest).toEqual(empty.graphql);
    expect((await rest(api, 'POST', `${base}/${id}/traces/attacks`, { token: owner.token, body: { attacks: spans } })).status).toBe(201);
    const filled = await bothWays('Query.assessment_analytics', path, variables);
    expect(filled.rest.total_attacks).toBe(3);
    expect(filled.rest.analytics_snapshot.by_goal_category.harm.attacks).toBe(2);
    expect(filled.rest).toEqual(filled.graphql);
    // Totals beyond 2^31 and scores with many digits.
    await database().query(`UPDATE airt_assessments SET total_trials = 9007199254740991, overall_asr = 0.30000000000000004, risk_score = 1e-7 WHERE id = $id`, { bind: { id } });
    const large = await bothWays('Query.assessment_analytics', path, variables);
    expect(large.rest).toMatchObject({ total_trials: 9007199254740991, overall_asr: 0.30000000000000004, risk_score: 1e-7 });
    expect(large.rest).toEqual(large.graphql);
    const missing = await rest(api, 'GET', `${base}/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/analytics`, { token: owner.token });
    expect([missing.status, missing.body.type]).toEqual([404, 'not_found_error']);
    const invalid = await rest(api, 'GET', `${base}/not-a-uuid/analytics`, { token: owner.token });
    expect([invalid.status, invalid.body.errors.map((item: { loc: string[] }) => item.loc)]).toEqual([422, [['path', 'assessment_id']]]);
  });

  it('still checks the query parameters’ rules (422 with every problem)', async () => {
    const path = `/org/${owner.orgKey}/ws/default/airt/assessments/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/traces/attacks`;
    const res = await rest(api, 'GET', path, { token: owner.token, query: { limit: 0, offset: -1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((item: { loc: string[] }) => item.loc.join('.')).sort()).toEqual(['query.limit', 'query.offset']);
  });
});

describe('Query.tasks (GET ORG/tasks)', () => {
  let other: TestUser;
  const names = { flag: catalogName('eq'), judge: catalogName('eq'), bare: catalogName('eq'), script: catalogName('eq'), shared: catalogName('eq') };

  beforeAll(async () => {
    other = (await createOrgWithRoles()).owner;
    await publishTask(api, owner, { name: names.bare });
    await publishTask(api, owner, { name: names.flag, version: '1.0.0', tags: ['web', 'crypto'], difficulty: 'hard', author: 'Ada', verification: { method: 'flag', flag_hash: 'abc' } });
    await publishTask(api, owner, {
      name: names.flag,
      version: '1.10.0',
      tags: ['web'],
      difficulty: 'hard',
      author: 'Ada',
      description: 'quotes " and \\ backslashes, ünïcødé',
      license: 'MIT',
      source: 'ctf',
      ports: { web: [80, 443] },
      sandbox_provider: 'docker',
      file_size: 9007199254740991,
      verification: { method: 'flag', hash: 'def', timeout: 90 },
    });
    await publishTask(api, owner, {
      name: names.judge,
      tags: [],
      verification: { method: 'script_and_judge', script: 'check.sh', where: 'agent', judge: { model: 'j', max_steps: 7, model_params: { t: 0.5 }, rubric: 'r', system_prompt: 's', task_context: { a: [1] } } },
    });
    await publishTask(api, owner, { name: names.script, difficulty: 'easy', is_public: true, verification: { method: 'outcome_judge', judge: { model: 'judge-1' } } });
    await publishTask(api, other, { name: names.shared, is_public: true, tags: ['web'], author: 'Bob' });
  });

  it('equals executing the route’s document, with filters, sorts, pages and other organizations’ public tasks', async () => {
    const path = `/org/${owner.orgKey}/tasks`;
    const variables = { org: owner.orgKey };
    const all = await bothWays('Query.tasks', path, variables);
    expect(all.rest.total).toBe(4);
    expect(all.rest).toEqual(all.graphql);
    const flag = all.rest.tasks.find((task: { name: string }) => task.name === names.flag);
    expect(flag).toMatchObject({ version: '1.10.0', version_count: 2, file_size: 9007199254740991, verification: { method: 'flag', hash: 'def', timeout: 90, where: 'environment', judge: null } });
    const queries: Record<string, string | number | boolean | string[]>[] = [
      { include_public: true, limit: 2 },
      { include_public: true, page: 2, limit: 2 },
      { public_only: true },
      { sort_by: 'name', sort_dir: 'asc' },
      { sort_by: 'difficulty', sort_dir: 'asc', limit: 3 },
      { sort_by: 'file_size' },
      { tags: ['web'], include_public: true },
      { difficulty: ['hard', 'easy'], author: ['Ada'] },
      { search: 'eq', page: 9 },
    ];
    for (const query of queries) {
      const both = await bothWays('Query.tasks', path, variables, query);
      expect([query, both.rest]).toEqual([query, both.graphql]);
    }
    // Rows stored before a default existed: the mapping fills it on both paths.
    await database().query(
      `UPDATE tasks SET verification = jsonb_set(verification - 'timeout' - 'where', '{judge}', (verification->'judge') - 'kind' - 'max_steps' - 'model_params' - 'task_context')
        WHERE name = $name`,
      { bind: { name: names.judge } },
    );
    const defaults = await bothWays('Query.tasks', path, variables);
    expect(defaults.rest).toEqual(defaults.graphql);
    expect(defaults.rest.tasks.find((task: { name: string }) => task.name === names.judge).verification).toMatchObject({ timeout: 30, where: 'environment', judge: { kind: 'trajectory', max_steps: 50, model_params: {}, task_context: {} } });
    const mixed = await bothWays('Query.tasks', `/org/${other.orgKey}/tasks`, { org: other.orgKey }, { include_public: true, sort_by: 'name', sort_dir: 'asc' }, other);
    expect(mixed.rest.total).toBeGreaterThanOrEqual(2);
    expect(mixed.rest).toEqual(mixed.graphql);
  });

  it('still validates its arguments (422 with every problem), and reports the service’s own checks at their REST place', async () => {
    const res = await rest(api, 'GET', `/org/${owner.orgKey}/tasks`, { token: owner.token, query: { limit: 0, sort_by: 'nope' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((item: { loc: string[] }) => item.loc.join('.')).sort()).toEqual(['query.limit', 'query.sort_by']);
    // A page past the end, however deep, is empty with the true totals (decisions §4), as executing the document answers it.
    for (const kind of ['tasks', 'datasets']) {
      const deep = await rest(api, 'GET', `/org/${owner.orgKey}/${kind}`, { token: owner.token, query: { page: 300, limit: 50 } });
      const first = await rest(api, 'GET', `/org/${owner.orgKey}/${kind}`, { token: owner.token, query: { limit: 50 } });
      expect([kind, deep.status, deep.body[kind], deep.body.page, deep.body.total]).toEqual([kind, 200, [], 300, first.body.total]);
    }
  });
});

describe('Query.datasets (GET ORG/datasets)', () => {
  it('equals executing the route’s document, with filters, sorts, pages and other organizations’ public datasets', async () => {
    const other = (await createOrgWithRoles()).owner;
    const tag = catalogName('dtag');
    const first = catalogName('ds');
    await publishDataset(api, owner, { name: first, tags: [tag] });
    await publishDataset(api, owner, {
      name: first,
      version: '1.1.0',
      pretty_name: 'First "quoted" ünïcødé',
      summary: 'a summary',
      license: 'mit',
      format: 'csv',
      size_category: 'small',
      language: ['en', 'fr'],
      tags: [tag, 'a'],
      task_categories: ['qa'],
      column_count: 4,
      row_count: 9007199254740991,
      file_size_bytes: 500,
      origin: { source: 'hf', nested: { list: [1, 2.5, null] } },
    });
    await publishDataset(api, owner, { name: catalogName('ds'), format: 'json', row_count: null, tags: [tag] });
    await publishDataset(api, other, { name: catalogName('ds'), is_public: true, tags: [tag], license: 'apache-2.0' });
    const path = `/org/${owner.orgKey}/datasets`;
    const variables = { org: owner.orgKey };
    const queries: Record<string, string | number | boolean | string[]>[] = [
      { tags: [tag] },
      { tags: [tag], include_public: true },
      { tags: [tag], include_public: true, sort_by: 'row_count', sort_dir: 'asc', limit: 2 },
      { tags: [tag], include_public: true, sort_by: 'name', page: 2, limit: 1 },
      { tags: [tag], license: ['mit', 'apache-2.0'], include_public: true },
      { public_only: true, tags: [tag] },
      { tags: [tag], page: 5 },
    ];
    for (const query of queries) {
      const both = await bothWays('Query.datasets', path, variables, query);
      expect([query, both.rest]).toEqual([query, both.graphql]);
    }
    const all = await bothWays('Query.datasets', path, variables, { tags: [tag] });
    expect(all.rest.total).toBe(2);
    expect(all.rest.datasets.find((item: { version: string }) => item.version === '1.1.0')).toMatchObject({ version_count: 2, row_count: 9007199254740991, origin: { source: 'hf' } });
    // A row stored without its origin object: the mapping fills them on both paths.
    await database().query(`UPDATE datasets SET origin = 'null'::jsonb WHERE name = $name`, { bind: { name: first } });
    const defaults = await bothWays('Query.datasets', path, variables, { tags: [tag] });
    expect(defaults.rest).toEqual(defaults.graphql);
    expect(defaults.rest.datasets.find((item: { version: string }) => item.version === '1.1.0').origin).toEqual({});
  });
});

describe('Query.sessions (GET WS/sessions)', () => {
  it('equals executing the route’s document: relations, usage, roll-ups, missing relations, filters, sorts and pages', async () => {
    const roles = await createOrgWithRoles();
    const { owner: boss, contributor } = roles;
    const on = { orgKey: roles.orgKey };
    const path = sessionsPath(roles.orgKey);
    const variables = { org: roles.orgKey, workspace: 'default' };
    const second = await createProject(roles.orgKey, 'default', 'second');
    const group = await createGroup(api, boss, ESCAPED_GROUP, on);

    const plain = await saveSession(api, boss, {}, on);
    const rich = await saveSession(api, boss, {
      ...ESCAPED_SESSION,
      group_id: group.id,
      message_count: 3,
    }, on);
    const shared = await saveSession(api, contributor, { visibility: 'workspace', agent: 'agent-y', model: 'model-b', group_id: group.id }, on);
    const hidden = await saveSession(api, contributor, { title: 'private to the contributor' }, on);
    await appendMessages(api, boss, rich.id, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'a', usage: { input_tokens: 100000000, output_tokens: 7, cache_creation_input_tokens: 2, cache_read_input_tokens: 1, cost_usd: 1e-7 } },
      { role: 'assistant', content: 'b', usage: { input_tokens: 5, output_tokens: 1, cost_usd: 0.30000000000000004 } },
      { role: 'user', content: 'no usage after the last generation' },
    ], on);
    const compact = await rest(api, 'POST', `${path}/${rich.id}/transcript/compact`, {
      token: boss.token,
      body: { up_to_seq: 2, summary: { role: 'system', content: 'summary', usage: { input_tokens: 3, output_tokens: 1 } } },
    });
    expect(compact.status).toBe(200);
    await appendMessages(api, contributor, shared.id, [{ role: 'user', content: 'old' }, { role: 'user', content: 'new' }], on);
    // A message older than the recent window; a second project; no project at all.
    await database().query(`UPDATE session_messages SET created_at = now() - interval '3 days' WHERE session_id = $id AND seq = 1`, { bind: { id: shared.id } });
    const inSecond = await saveSession(api, boss, { agent: 'agent-x', project_id: second.id }, on);
    await database().query(`UPDATE sessions SET project_id = NULL WHERE id = $id`, { bind: { id: plain.id } });
    expect((await rest(api, 'POST', `${path}/${plain.id}/freeze`, { token: boss.token })).status).toBe(200);
    const archived = await saveSession(api, boss, { title: 'archived' }, on);
    expect((await rest(api, 'POST', `${path}/${archived.id}/archive`, { token: boss.token })).status).toBe(200);

    const all = await bothWays('Query.sessions', path, variables, {}, boss);
    expect(all.rest.total).toBe(4);
    expect(all.rest).toEqual(all.graphql);
    const byId = new Map(all.rest.sessions.map((session: { id: string }) => [session.id, session]));
    expect(byId.has(hidden.id)).toBe(false);
    expect(byId.get(rich.id)).toMatchObject({
      group: { id: group.id, session_count: 2, kind: 'workflow_run' },
      recent_message_count: 5,
      usage: { total_message_count: 5, current_message_count: 3, compaction_count: 1, total_input_tokens: 100000008, last_generation_input_tokens: 3 },
    });
    expect(byId.get(shared.id)).toMatchObject({ recent_message_count: 1, created_by: { id: contributor.id }, shared_by: { id: contributor.id } });
    expect(byId.get(inSecond.id)).toMatchObject({ project_id: second.id, project_key: 'second', project_name: 'Project second', recent_message_count: null });
    expect(byId.get(plain.id)).toMatchObject({ project_id: null, frozen_by: 'user', usage: { total_message_count: 0, total_cost_usd: null } });

    const queries: Record<string, string | number | boolean | string[]>[] = [
      { limit: 2 },
      { limit: 2, page: 2 },
      { page: 9 },
      { sort_by: 'created_at', sort_dir: 'asc' },
      { sort_by: 'last_message_at' },
      { sort_by: 'message_count', sort_dir: 'asc', limit: 3 },
      { archived: 'any' },
      { archived: 'archived' },
      { agent: ['agent-x'], label: ['tier:gold'] },
      { search: 'quotes' },
      { user: [contributor.username] },
    ];
    for (const query of queries) {
      const both = await bothWays('Query.sessions', path, variables, query, boss);
      expect([query, both.rest]).toEqual([query, both.graphql]);
    }
    // Each one read alone (GET WS/sessions/{id}, Query.session), by id and by a unique prefix.
    const everyScope = await bothWays('Query.sessions', path, variables, { archived: 'any' }, boss);
    const anyById = new Map(everyScope.rest.sessions.map((session: { id: string }) => [session.id, session]));
    for (const session of [plain, rich, shared, inSecond, archived]) {
      const one = await bothWays('Query.session', `${path}/${session.id}`, { ...variables, session_id: session.id }, {}, boss);
      expect(one.rest).toEqual(one.graphql);
      expect(one.rest).toEqual(anyById.get(session.id));
    }
    expect(anyById.get(archived.id)).toMatchObject({ archived_at: expect.any(String) });
    const prefix = rich.id.slice(0, 13);
    const byPrefix = await bothWays('Query.session', `${path}/${prefix}`, { ...variables, session_id: prefix }, {}, boss);
    expect(byPrefix.rest).toEqual(byPrefix.graphql);
    expect(byPrefix.rest.id).toBe(rich.id);
    // Another member sees the shared session and not the owner's private ones.
    const theirs = await bothWays('Query.sessions', path, variables, {}, contributor);
    expect(theirs.rest.sessions.map((session: { id: string }) => session.id).sort()).toEqual([hidden.id, shared.id].sort());
    expect(theirs.rest).toEqual(theirs.graphql);
  });

  it('a single read answers 404, 409 and 422 as executing its document does', async () => {
    const path = sessionsPath(owner.orgKey);
    const ids = ['abcd0000-0000-4000-8000-000000000001', 'abcd0000-0000-4000-8000-000000000002'];
    for (const id of ids) await saveSession(api, owner, { id });
    const ambiguous = await rest(api, 'GET', `${path}/abcd0000`, { token: owner.token });
    expect([ambiguous.status, ambiguous.body.type]).toEqual([409, 'conflict_error']);
    const missing = await rest(api, 'GET', `${path}/${'f'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, { token: owner.token });
    expect([missing.status, missing.body.type]).toEqual([404, 'not_found_error']);
    const notAPrefix = await rest(api, 'GET', `${path}/zzzz`, { token: owner.token });
    expect([notAPrefix.status, notAPrefix.body.type]).toEqual([404, 'not_found_error']);
    const short = await rest(api, 'GET', `${path}/abc`, { token: owner.token });
    expect([short.status, short.body.errors.map((item: { loc: string[] }) => item.loc)]).toEqual([422, [['path', 'session_id']]]);
    const elsewhere = await rest(api, 'GET', `/org/${owner.orgKey}/ws/nope/sessions/${ids[0]}`, { token: owner.token });
    expect(elsewhere.status).toBe(404);
  });

  it('still validates its arguments (422 with every problem at its REST place)', async () => {
    const path = sessionsPath(owner.orgKey);
    const res = await rest(api, 'GET', path, { token: owner.token, query: { limit: 0, sort_by: 'nope' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((item: { loc: string[] }) => item.loc.join('.')).sort()).toEqual(['query.limit', 'query.sort_by']);
    const label = await rest(api, 'GET', path, { token: owner.token, query: { label: ['no-colon'] } });
    expect([label.status, label.body.errors.map((item: { loc: string[] }) => item.loc.join('.'))]).toEqual([422, ['query.label']]);
    // A page past the end, however deep, is empty with the true totals (decisions §4).
    const deep = await rest(api, 'GET', path, { token: owner.token, query: { page: 300, limit: 100 } });
    expect([deep.status, deep.body.sessions, deep.body.page, deep.body.total > 0]).toEqual([200, [], 300, true]);
  });
});

describe('Query.trace_spans (GET WS/traces/{trace_id}/spans)', () => {
  it("equals executing the route's document: every order, direction and window, nested attributes, events, nulls and text to escape", async () => {
    const key = (await createApiKey(api, owner, { name: 'spans' })).key;
    const traceId = crypto.randomBytes(16).toString('hex');
    const rootId = crypto.randomBytes(8).toString('hex');
    const start = BigInt(Date.now()) * 1_000_000n;
    const value = (v: unknown) => (typeof v === 'number' ? (Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v }) : typeof v === 'boolean' ? { boolValue: v } : { stringValue: v });
    const spans = Array.from({ length: 12 }, (_, index) => ({
      traceId,
      spanId: index === 0 ? rootId : crypto.randomBytes(8).toString('hex'),
      ...(index === 0 ? {} : { parentSpanId: rootId }),
      name: index % 3 === 0 ? `tab\there "quoted" \\ ünïcödé ${index}` : `step ${String.fromCharCode(97 + (index % 5))}`,
      kind: index % 4,
      startTimeUnixNano: String(start + BigInt(index * 1_234_567)),
      endTimeUnixNano: String(start + BigInt(index * 1_234_567 + (index % 4) * 2_500_123)),
      attributes: Object.entries({
        'dreadnode.type': index === 0 ? 'task' : 'tool',
        nested: JSON.stringify({ list: [1, 'two', null, { deep: index }], flag: true }),
        ratio: index / 7,
        count: index * 1000,
        ok: index % 2 === 0,
      }).map(([k, v]) => ({ key: k, value: value(v) })),
      events: index % 2 ? [{ name: 'retry', timeUnixNano: String(start + BigInt(index)), attributes: [{ key: 'attempt', value: value(index) }] }] : [],
      status: index === 5 ? { code: 2, message: 'failed:\nwith a newline' } : { code: index % 2 },
    }));
    const sent = await rest(api, 'POST', `/org/${owner.orgKey}/otel/traces`, {
      headers: { 'x-api-key': key },
      body: { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'equivalence' } }] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] },
    });
    expect(sent.status).toBe(200);
    const path = `/org/${owner.orgKey}/ws/default/traces/${traceId}/spans`;
    const variables = { org: owner.orgKey, workspace: 'default', trace_id: traceId };
    const all = await bothWays('Query.trace_spans', path, variables, { limit: 1000 });
    expect(all.rest).toEqual(all.graphql);
    expect(all.rest.rows).toBe(12);
    expect(all.rest.data[5]).toMatchObject({ status_code: 2, status_message: 'failed:\nwith a newline', attributes: { nested: { list: [1, 'two', null, { deep: 5 }], flag: true } } });
    for (const order_by of ['Timestamp', 'Duration', 'SpanName']) {
      for (const order_dir of ['ASC', 'DESC']) {
        const window = await bothWays('Query.trace_spans', path, variables, { order_by, order_dir, limit: 5, offset: 3 });
        expect(window.rest).toEqual(window.graphql);
        expect(window.rest.rows).toBe(5);
      }
    }
    // A window past the end (no span): the resolver's empty window, not a 404.
    const past = await rest(api, 'GET', path, { token: owner.token, query: { offset: 50 } });
    expect([past.status, past.body.rows, past.body.data]).toEqual([200, 0, []]);
    const unknown = await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/traces/${'0'.repeat(31)}1/spans`, { token: owner.token });
    expect(unknown.status).toBe(404);
  });
});

import { print } from 'graphql';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { catalogName, publishDataset, publishTask } from '../../factories/catalogs';
import { database } from '../../../src/db/database';
import { createRestRouter, type RestPlan } from '../../../src/rest';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Routes whose REST reply PostgreSQL builds (@RestJson) skip GraphQL
 * execution, so nothing but this file keeps them equal to it: each one's
 * reply must equal the data of executing the route's own document through
 * /graphql, on data that covers every shape of its type.
 */
const api = useTestApp();
let owner: TestUser;
let plans: Map<string, RestPlan>;

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  plans = createRestRouter(api.app.schema).plans;
});

/** The route's reply beside its document run through GraphQL with the same arguments. */
async function bothWays(key: string, path: string, variables: Record<string, unknown>, query: Record<string, string | number | boolean | string[]> = {}, user = owner) {
  const plan = plans.get(key)!;
  const viaRest = await rest(api, 'GET', path, { token: user.token, query });
  const viaGraphql = await gql(api, print(plan.document), { ...variables, ...query }, user.token);
  expect(viaRest.status).toBe(200);
  expect(viaGraphql.body.errors).toBeUndefined();
  return { rest: viaRest.body, graphql: viaGraphql.body.data![plan.fieldName] };
}

it('lists every route that has a PostgreSQL-built reply; each has a comparison below', () => {
  expect([...plans.values()].filter((plan) => plan.json).map((plan) => `${plan.kind}.${plan.fieldName}`)).toEqual(['Query.assessment_attacks', 'Query.datasets', 'Query.tasks']);
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
    // A page deeper than the offset cap is refused by the service (checkPageDepth), at ["query", "page"] as executing the document reports it.
    for (const kind of ['tasks', 'datasets']) {
      const deep = await rest(api, 'GET', `/org/${owner.orgKey}/${kind}`, { token: owner.token, query: { page: 300, limit: 50 } });
      expect([kind, deep.status, deep.body.errors.map((item: { loc: string[] }) => item.loc)]).toEqual([kind, 422, [['query', 'page']]]);
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

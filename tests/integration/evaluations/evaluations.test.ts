import crypto from 'node:crypto';
import { OrganizationModel } from '../../../models';
import { database } from '../../../src/db/database';
import { recountItems } from '../../../src/modules/evaluations/evaluations.service';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { catalogName, publishTask } from '../../factories/catalogs';
import { createEvaluation, evaluationsPath, insertTasks, items, PIPELINE, publishVerifiedTask, transition } from '../../factories/evaluations';
import { createProject, createWorkspace, defaultProject } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let outsider: TestUser;
let stranger: TestUser;
let org: string;
const own = catalogName('own');
const noVerify = catalogName('nover');
const pub = catalogName('pub');
const priv = catalogName('priv');
const setName = catalogName('set');

const ws = () => evaluationsPath(org);
const one = (id: string) => `${ws()}/evaluation/${id}`;
const locs = (body: any) => body.errors.map((item: { loc: unknown[] }) => item.loc);

beforeAll(async () => {
  ({ owner, contributor, reader, outsider, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
  await publishVerifiedTask(api, owner, { name: own, version: '1.0.0' }, org);
  await publishVerifiedTask(api, owner, { name: own, version: '1.1.0' }, org);
  await publishTask(api, owner, { name: noVerify }, org);
  await publishVerifiedTask(api, stranger, { name: pub, is_public: true });
  await publishVerifiedTask(api, stranger, { name: priv });
  const set = await rest(api, 'POST', `/org/${org}/task-sets`, { token: owner.token, body: { name: setName, members: [own, `${own}@1.0.0`, noVerify, `${stranger.orgKey}/${pub}`] } });
  expect(set.status).toBe(201);
});

describe('create evaluation', () => {
  it('resolves task names, a task set and dataset rows into items, with every field of the reply', async () => {
    const project = await defaultProject(org);
    const res = await rest(api, 'POST', `${ws()}/evaluation`, {
      token: contributor.token,
      body: {
        model: 'model-a',
        name: 'Bench',
        concurrency: 10,
        engine: 'engine-x',
        judge_model: 'judge-1',
        model_overrides: { attacker: 'model-b' },
        task_names: [`${own}@1.0.0`, pub, priv, 'missing-task', 'missing-task'],
        task_set: setName,
        dataset: [{ prompt: 'a' }, { prompt: 'b' }],
        task_timeout_sec: 600,
      },
    });
    expect(res.status).toBe(201);
    const job = res.body;
    // own@1.0.0, pub, (set) own@1.1.0 latest; own@1.0.0 and the public task again are one item each; 2 dataset rows.
    // A missing task named twice is skipped once.
    expect(job).toMatchObject({
      name: 'Bench',
      kind: 'security_task_benchmark',
      model: 'model-a',
      engine: 'engine-x',
      cleanup_policy: 'always',
      job_status: 'queued',
      project_id: project.id,
      created_by: contributor.id,
      created_by_email: contributor.email,
      created_by_user: { id: contributor.id, username: contributor.username, email: contributor.email },
      dataset_size: 5,
      requested_concurrency: 10,
      effective_concurrency: 5,
      task_timeout_sec: 600,
      analytics: null,
      started_at: null,
      completed_at: null,
      cancel_requested_at: null,
      dataset_ref: { rows: 2 },
      task_set_ref: { name: setName, org_key: `${org}/${setName}` },
    });
    expect(job.item_counts).toEqual({
      queued: 5, claiming: 0, provisioning: 0, agent_running: 0, agent_finished: 0, verifying: 0,
      passed: 0, failed: 0, errored: 0, infra_error: 0, timed_out: 0, cancelled: 0,
    });
    expect(job.config_json).toMatchObject({ model: 'model-a', judge_model: 'judge-1', concurrency: 10, model_overrides: { attacker: 'model-b' }, task_set: setName });
    expect(job.skipped_members).toEqual([
      { reason: 'not_found', task_name: priv, task_version: null },
      { reason: 'not_found', task_name: 'missing-task', task_version: null },
      { reason: 'no_verification', task_name: noVerify, task_version: null },
    ]);
    const list = await items(api, owner, job.id, org);
    expect(list.map((item) => [item.task_name, item.task_version, item.status, item.attempt])).toEqual([
      [own, '1.0.0', 'queued', 1],
      [pub, '1.0.0', 'queued', 1],
      [own, '1.1.0', 'queued', 1],
      ['dataset[0]', null, 'queued', 1],
      ['dataset[1]', null, 'queued', 1],
    ]);
    expect(Object.keys(list[0]).sort()).toEqual(['attempt', 'completed_at', 'created_at', 'error', 'evaluation_id', 'id', 'started_at', 'status', 'task_name', 'task_version']);
  });

  it('creates through GraphQL with the same reply', async () => {
    const res = await runOperation(api, 'CreateEvaluation', { org, workspace: 'default', input: { model: 'm', name: 'gql', task_names: [own] } }, owner.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.create_evaluation).toMatchObject({ dataset_size: 1, job_status: 'queued', item_counts: { queued: 1 }, task_set_ref: null, skipped_members: [] });
  });

  it('answers 422 with the loc of every bound the spec sets', async () => {
    const res = await rest(api, 'POST', `${ws()}/evaluation`, {
      token: owner.token,
      body: {
        model: '',
        name: 'x'.repeat(256),
        concurrency: 101,
        engine: 'e'.repeat(256),
        judge_model: 'j'.repeat(256),
        task_set: 's'.repeat(513),
        task_timeout_sec: 0,
        task_names: [own, 42],
        dataset: [{ ok: true }, 'row'],
        project_id: 'not-a-uuid',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    const found = locs(res.body).map((loc: unknown[]) => loc.join('.'));
    for (const loc of ['body.model', 'body.name', 'body.concurrency', 'body.engine', 'body.judge_model', 'body.task_set', 'body.task_timeout_sec', 'body.task_names.1', 'body.dataset.1', 'body.project_id']) {
      expect(found).toContain(loc);
    }
    const missing = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: {} });
    expect(locs(missing.body)).toEqual(expect.arrayContaining([['body', 'model'], ['body', 'name']]));
    const tooMany = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: Array.from({ length: 10_001 }, () => own) } });
    expect(tooMany.status).toBe(422);
    expect(locs(tooMany.body)).toEqual([['body', 'task_names']]);
    const malformed = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: [own, 'Bad Name'] } });
    expect(locs(malformed.body)).toEqual([['body', 'task_names', 1]]);
    // A malformed name and another rule broken in one request: both in one reply.
    const both = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: ['Bad Name', own, 'x@1'], concurrency: 101 } });
    expect(both.status).toBe(422);
    expect(locs(both.body).map((loc: unknown[]) => loc.join('.')).sort()).toEqual(['body.concurrency', 'body.task_names.0', 'body.task_names.2']);
    const viaGraphQL = await runOperation(api, 'CreateEvaluation', { org, workspace: 'default', input: { model: 'm', name: 'n', task_names: ['Bad Name'], concurrency: 101 } }, owner.token);
    expect(viaGraphQL.body.errors![0].extensions.errors.map((item: { loc: unknown[] }) => item.loc.join('.')).sort()).toEqual(['input.concurrency', 'input.task_names.0']);
  });

  it("refuses a task_timeout_sec above the organization's sandbox ceiling", async () => {
    await OrganizationModel.update({ max_sandbox_runtime_seconds: 900 }, { where: { key: org } });
    try {
      const res = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: [own], task_timeout_sec: 901 } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ loc: ['body', 'task_timeout_sec'], type: 'less_than_equal' });
      await createEvaluation(api, owner, { task_names: [own], task_timeout_sec: 900 }, org);
    } finally {
      await OrganizationModel.update({ max_sandbox_runtime_seconds: null }, { where: { key: org } });
    }
  });

  it('answers 404 task_set_not_found for an unknown or private foreign task set, and 404 for a project of another workspace', async () => {
    const unknown = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_set: 'nothing-here' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe('task_set_not_found');
    const foreignSet = catalogName('fset');
    await rest(api, 'POST', `/org/${stranger.orgKey}/task-sets`, { token: stranger.token, body: { name: foreignSet, members: [pub] } });
    const hidden = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_set: `${stranger.orgKey}/${foreignSet}` } });
    expect(hidden.body.type).toBe('task_set_not_found');
    await rest(api, 'PATCH', `/org/${stranger.orgKey}/task-sets/${foreignSet}/visibility`, { token: stranger.token, body: { is_public: true } });
    const visible = await createEvaluation(api, owner, { task_set: `${stranger.orgKey}/${foreignSet}` }, org);
    expect(visible.task_set_ref).toMatchObject({ name: foreignSet, org_key: `${stranger.orgKey}/${foreignSet}` });
    const other = await createWorkspace(org);
    const otherProject = await createProject(org, other.key);
    const wrongProject = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: [own], project_id: otherProject.id } });
    expect(wrongProject.status).toBe(404);
    expect(wrongProject.body.type).toBe('not_found_error');
    const strangerProject = await defaultProject(stranger.orgKey);
    expect((await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: [own], project_id: strangerProject.id } })).status).toBe(404);
  });

  it('answers 400 when nothing resolves to an item, and writes nothing', async () => {
    const before = await rest(api, 'GET', `${ws()}/evaluations`, { token: owner.token });
    const res = await rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'n', task_names: [priv, noVerify] } });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_error');
    const after = await rest(api, 'GET', `${ws()}/evaluations`, { token: owner.token });
    expect(after.body.total).toBe(before.body.total);
  });

  it('hides the workspace from outsiders (404) and refuses readers (403)', async () => {
    const body = { model: 'm', name: 'n', task_names: [own] };
    expect((await rest(api, 'POST', `${ws()}/evaluation`, { token: outsider.token, body })).status).toBe(404);
    const denied = await rest(api, 'POST', `${ws()}/evaluation`, { token: reader.token, body });
    expect(denied.status).toBe(403);
    expect(denied.body.type).toBe('forbidden_error');
  });

  it('resolves a bare member of another organization\'s public set to that organization\'s task, not a same-named one of the caller', async () => {
    const shared = catalogName('shared');
    const foreignSet = catalogName('fset');
    await publishVerifiedTask(api, stranger, { name: shared, version: '1.0.0', is_public: true });
    await publishVerifiedTask(api, owner, { name: shared, version: '9.0.0' }, org);
    const created = await rest(api, 'POST', `/org/${stranger.orgKey}/task-sets`, { token: stranger.token, body: { name: foreignSet, members: [shared], is_public: true } });
    expect(created.status).toBe(201);
    const job = await createEvaluation(api, owner, { task_set: `${stranger.orgKey}/${foreignSet}` }, org);
    const [item] = await items(api, owner, job.id, org);
    expect(item).toMatchObject({ task_name: shared, task_version: '1.0.0' });
  });

  it('refuses a lone UTF-16 surrogate in JSON input with 422, not a database error', async () => {
    const res = await rest(api, 'POST', `${ws()}/evaluation`, {
      token: owner.token,
      rawBody: `{"model": "m", "name": "n", "task_names": ["${own}"], "dataset": [{"prompt": "\\ud800"}]}`,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'dataset', 0, 'prompt'], type: 'string_unicode' })]);
  });

  it('resolves and inserts any number of tasks with the same number of SQL statements, in one transaction', async () => {
    const names = await insertTasks(org, catalogName('bulk'), 10_000);
    const send = (taskNames: string[]) => rest(api, 'POST', `${ws()}/evaluation`, { token: owner.token, body: { model: 'm', name: 'bulk', task_names: taskNames } });
    const small = await countStatements(() => send(names.slice(0, 10)));
    const large = await countStatements(() => send(names));
    expect(small.result.status).toBe(201);
    expect(large.result.status).toBe(201);
    expect(large.result.body.dataset_size).toBe(10_000);
    expect(large.statements.length).toBe(small.statements.length);
    expect(large.statements.length).toBeLessThanOrEqual(10);
    expect(large.statements.some((sql) => /START TRANSACTION|BEGIN/i.test(sql))).toBe(true);
  });
});

describe('items and their state machine', () => {
  it('drives items to the end: running on the first move, completed with analytics at the last, counters equal to a recount', async () => {
    const job = await createEvaluation(api, owner, { task_names: [own, pub], dataset: [{ a: 1 }] }, org);
    const [a, b, c] = await items(api, owner, job.id, org);
    const first = await transition(api, contributor, job.id, a.id, 'claiming', org);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: a.id, status: 'claiming', attempt: 1, completed_at: null });
    expect(first.body.started_at).not.toBeNull();
    let current = (await rest(api, 'GET', one(job.id), { token: reader.token })).body;
    expect(current).toMatchObject({ job_status: 'running', item_counts: { queued: 2, claiming: 1 } });
    expect(current.started_at).not.toBeNull();
    for (const to of PIPELINE.slice(1)) expect((await transition(api, owner, job.id, a.id, to, org)).status).toBe(200);
    expect((await transition(api, owner, job.id, a.id, 'passed', org)).status).toBe(200);
    for (const to of PIPELINE) expect((await transition(api, owner, job.id, b.id, to, org)).status).toBe(200);
    const failed = await transition(api, owner, job.id, b.id, 'failed', org, { error: 'wrong flag' });
    expect(failed.body).toMatchObject({ status: 'failed', error: 'wrong flag' });
    expect((await rest(api, 'GET', `${one(job.id)}/analytics`, { token: owner.token })).status).toBe(404);
    expect((await transition(api, owner, job.id, c.id, 'claiming', org)).status).toBe(200);
    expect((await transition(api, owner, job.id, c.id, 'infra_error', org, { error: 'sandbox gone' })).status).toBe(200);
    current = (await rest(api, 'GET', one(job.id), { token: owner.token })).body;
    expect(current).toMatchObject({ job_status: 'completed', item_counts: { queued: 0, passed: 1, failed: 1, infra_error: 1 } });
    expect(current.completed_at).not.toBeNull();
    expect(current.analytics).toMatchObject({ status: 'completed', pass_rate: 1 / 3, passed_count: 1, failed_count: 1, error_count: 1, total_samples: 3, dataset_size: 3, iterations: 1, name: job.name });
    expect(current.analytics.duration_ms).toBeGreaterThanOrEqual(0);
    const analytics = await rest(api, 'GET', `${one(job.id)}/analytics`, { token: reader.token });
    expect(analytics.status).toBe(200);
    expect(analytics.body).toEqual(current.analytics);
    const gqlAnalytics = await runOperation(api, 'EvaluationAnalytics', { org, workspace: 'default', id: job.id }, owner.token);
    expect(gqlAnalytics.body.data.evaluation_analytics.pass_rate).toBeCloseTo(1 / 3);
    expect(await recountItems(job.id)).toEqual(current.item_counts);
  });

  it('answers 409 conflict_error for any move outside the machine, 422 for an unknown state, 404 for unknown ids', async () => {
    const job = await createEvaluation(api, owner, { task_names: [own] }, org);
    const [item] = await items(api, owner, job.id, org);
    for (const to of ['provisioning', 'passed', 'queued', 'verifying']) {
      const res = await transition(api, owner, job.id, item.id, to, org);
      expect(res.status).toBe(409);
      expect(res.body.type).toBe('conflict_error');
    }
    expect((await transition(api, owner, job.id, item.id, 'cancelled', org)).status).toBe(200);
    expect((await transition(api, owner, job.id, item.id, 'claiming', org)).status).toBe(409);
    const bad = await transition(api, owner, job.id, item.id, 'flying', org);
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([['body', 'to']]);
    const badPath = await rest(api, 'POST', `${ws()}/evaluation/nope/items/also-nope/transition`, { token: owner.token, body: { to: 'claiming' } });
    expect(badPath.status).toBe(422);
    // The item id is a UUID (checked with the request's variables); the evaluation id may be a prefix, checked once the item id passes.
    expect(locs(badPath.body)).toEqual([['path', 'item_id']]);
    const shortId = await rest(api, 'POST', `${ws()}/evaluation/nope/items/${crypto.randomUUID()}/transition`, { token: owner.token, body: { to: 'claiming' } });
    expect(locs(shortId.body)).toEqual([['path', 'id']]);
    expect((await transition(api, owner, job.id, crypto.randomUUID(), 'claiming', org)).status).toBe(404);
    expect((await rest(api, 'GET', `${one(job.id)}/items/${crypto.randomUUID()}`, { token: owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', one(crypto.randomUUID()), { token: owner.token })).status).toBe(404);
    const read = await rest(api, 'GET', `${one(job.id)}/items/${item.id}`, { token: reader.token });
    expect(read.body).toMatchObject({ id: item.id, status: 'cancelled', evaluation_id: job.id });
    const denied = await transition(api, reader, job.id, item.id, 'claiming', org);
    expect(denied.status).toBe(403);
  });

  it('lets exactly one of two workers move an item at the same moment, and the counters never drift', async () => {
    const job = await createEvaluation(api, owner, { dataset: Array.from({ length: 6 }, (_, index) => ({ index })) }, org);
    const list = await items(api, owner, job.id, org);
    const results = await Promise.all(list.flatMap((item) => [0, 1, 2].map(() => transition(api, owner, job.id, item.id, 'claiming', org))));
    for (let index = 0; index < list.length; index += 1) {
      const statuses = results.slice(index * 3, index * 3 + 3).map((res) => res.status).sort();
      expect(statuses).toEqual([200, 409, 409]);
    }
    // Every item moved by concurrent workers to different terminal states at once.
    const ends = ['errored', 'timed_out', 'cancelled', 'infra_error', 'errored', 'timed_out'];
    await Promise.all(list.map((item, index) => transition(api, owner, job.id, item.id, ends[index], org)));
    const current = (await rest(api, 'GET', one(job.id), { token: owner.token })).body;
    expect(current.item_counts).toEqual(await recountItems(job.id));
    expect(current).toMatchObject({ job_status: 'completed', item_counts: { errored: 2, timed_out: 2, cancelled: 1, infra_error: 1 } });
    expect(current.analytics).toMatchObject({ pass_rate: 0, error_count: 5 });
  });

  it('pages through every item of an evaluation, past the 10,000 rows other lists stop at', async () => {
    const dataset = Array.from({ length: 10_000 }, (_, index) => ({ index }));
    const job = await createEvaluation(api, owner, { task_names: [own, `${own}@1.0.0`], dataset }, org);
    const last = await rest(api, 'GET', `${one(job.id)}/items`, { token: reader.token, query: { limit: '1', page: '10002' } });
    expect(last.status).toBe(200);
    expect(last.body.items.map((item: { task_name: string }) => item.task_name)).toEqual(['dataset[9999]']);
    expect((await rest(api, 'GET', `${one(job.id)}/items`, { token: reader.token, query: { limit: '1000', page: '11' } })).body.items).toHaveLength(2);
    // Past the end, however deep: empty.
    const past = await rest(api, 'GET', `${one(job.id)}/items`, { token: reader.token, query: { limit: '1', page: '30002' } });
    expect([past.status, past.body.items]).toEqual([200, []]);
  });

  it('moves through GraphQL too', async () => {
    const job = await createEvaluation(api, owner, { task_names: [own] }, org);
    const [item] = await items(api, owner, job.id, org);
    const res = await runOperation(api, 'TransitionEvaluationItem', { org, workspace: 'default', id: job.id, item_id: item.id, input: { to: 'claiming' } }, owner.token);
    expect(res.body.data.transition_evaluation_item).toMatchObject({ status: 'claiming' });
    const again = await runOperation(api, 'TransitionEvaluationItem', { org, workspace: 'default', id: job.id, item_id: item.id, input: { to: 'claiming' } }, owner.token);
    expect(again.body.errors![0].extensions).toMatchObject({ type: 'conflict_error' });
    const one = await runOperation(api, 'EvaluationItem', { org, workspace: 'default', id: job.id, item_id: item.id }, reader.token);
    expect(one.body.data.evaluation_item.status).toBe('claiming');
    const listed = await runOperation(api, 'EvaluationItems', { org, workspace: 'default', id: job.id, status: 'claiming' }, reader.token);
    expect(listed.body.data.evaluation_items.items).toHaveLength(1);
  });
});

describe('readers and the job lock', () => {
  it('refuses a reader\'s writes while a worker holds the job row, without waiting for it', async () => {
    const job = await createEvaluation(api, owner, { task_names: [own] }, org);
    const [item] = await items(api, owner, job.id, org);
    const worker = await database().transaction();
    try {
      await database().query('SELECT id FROM evaluations WHERE id = $id FOR UPDATE', { bind: { id: job.id }, transaction: worker });
      const writes = await Promise.race([
        Promise.all([
          transition(api, reader, job.id, item.id, 'claiming', org),
          rest(api, 'POST', `${one(job.id)}/cancel`, { token: reader.token }),
          rest(api, 'POST', `${one(job.id)}/retry-failed`, { token: reader.token }),
        ]),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000)),
      ]);
      expect(writes).not.toBeNull();
      expect(writes!.map((res) => res.status)).toEqual([403, 403, 403]);
    } finally {
      await worker.rollback();
    }
  });
});

describe('cancel and retry', () => {
  it('cancels a job with nothing in flight at once, and refuses to cancel it again', async () => {
    const job = await createEvaluation(api, owner, { dataset: [{}, {}] }, org);
    const res = await rest(api, 'POST', `${one(job.id)}/cancel`, { token: contributor.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ job_status: 'cancelled', item_counts: { queued: 0, cancelled: 2 }, analytics: null });
    expect(res.body.cancel_requested_at).not.toBeNull();
    expect(res.body.completed_at).not.toBeNull();
    const again = await rest(api, 'POST', `${one(job.id)}/cancel`, { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('conflict_error');
    expect((await rest(api, 'POST', `${one(job.id)}/retry-failed`, { token: owner.token })).status).toBe(409);
  });

  it('ends a cancelled job once its last in-flight item is terminal', async () => {
    const job = await createEvaluation(api, owner, { dataset: [{}, {}, {}] }, org);
    const [a] = await items(api, owner, job.id, org);
    await transition(api, owner, job.id, a.id, 'claiming', org);
    const res = await runOperation(api, 'CancelEvaluation', { org, workspace: 'default', id: job.id }, owner.token);
    expect(res.body.data.cancel_evaluation).toMatchObject({ job_status: 'running', item_counts: { claiming: 1, cancelled: 2, queued: 0 } });
    expect((await transition(api, owner, job.id, a.id, 'provisioning', org)).status).toBe(200);
    expect((await transition(api, owner, job.id, a.id, 'errored', org)).status).toBe(200);
    const done = (await rest(api, 'GET', one(job.id), { token: owner.token })).body;
    expect(done).toMatchObject({ job_status: 'cancelled', analytics: null, item_counts: { errored: 1, cancelled: 2 } });
    expect(done.completed_at).not.toBeNull();
    expect((await rest(api, 'POST', `${one(job.id)}/cancel`, { token: reader.token })).status).toBe(403);
  });

  it('retries failed, errored, infra_error and timed_out items as a new attempt and reopens the job', async () => {
    const job = await createEvaluation(api, owner, { dataset: [{}, {}, {}] }, org);
    const [a, b, c] = await items(api, owner, job.id, org);
    expect((await rest(api, 'POST', `${one(job.id)}/retry-failed`, { token: owner.token })).status).toBe(409);
    for (const to of PIPELINE) await transition(api, owner, job.id, a.id, to, org);
    await transition(api, owner, job.id, a.id, 'passed', org);
    await transition(api, owner, job.id, b.id, 'timed_out', org, { error: 'slow' });
    await transition(api, owner, job.id, c.id, 'claiming', org);
    await transition(api, owner, job.id, c.id, 'errored', org, { error: 'boom' });
    expect((await rest(api, 'GET', one(job.id), { token: owner.token })).body.job_status).toBe('completed');
    expect((await rest(api, 'POST', `${one(job.id)}/retry-failed`, { token: reader.token })).status).toBe(403);
    const res = await rest(api, 'POST', `${one(job.id)}/retry-failed`, { token: contributor.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ job_status: 'queued', completed_at: null, analytics: null, item_counts: { queued: 2, passed: 1, timed_out: 0, errored: 0 } });
    const after = await items(api, owner, job.id, org);
    expect(after.map((item) => [item.status, item.attempt, item.error, item.started_at, item.completed_at])).toEqual([
      ['passed', 1, null, expect.any(String), expect.any(String)],
      ['queued', 2, null, null, null],
      ['queued', 2, null, null, null],
    ]);
    await transition(api, owner, job.id, b.id, 'cancelled', org);
    await transition(api, owner, job.id, c.id, 'cancelled', org);
    const done = (await rest(api, 'GET', one(job.id), { token: owner.token })).body;
    expect(done).toMatchObject({ job_status: 'completed', analytics: { iterations: 2, pass_rate: 1 / 3 } });
    const gql = await runOperation(api, 'RetryFailedEvaluationItems', { org, workspace: 'default', id: job.id }, owner.token);
    expect(gql.body.errors![0].extensions).toMatchObject({ type: 'conflict_error' });
  });
});

describe('lists', () => {
  it('pages the workspace evaluations newest first with project and status filters', async () => {
    const fresh = await createUser();
    await publishVerifiedTask(api, fresh, { name: 'only-task' });
    const project = await createProject(fresh.orgKey);
    const a = await createEvaluation(api, fresh, { task_names: ['only-task'] });
    const b = await createEvaluation(api, fresh, { task_names: ['only-task'], project_id: project.id });
    const c = await createEvaluation(api, fresh, { dataset: [{}] });
    await rest(api, 'POST', `${evaluationsPath(fresh.orgKey)}/evaluation/${c.id}/cancel`, { token: fresh.token });
    const path = `${evaluationsPath(fresh.orgKey)}/evaluations`;
    const all = await rest(api, 'GET', path, { token: fresh.token });
    expect(all.body).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(all.body.items.map((job: any) => job.id)).toEqual([c.id, b.id, a.id]);
    const paged = await rest(api, 'GET', path, { token: fresh.token, query: { page: 2, page_size: 2 } });
    expect(paged.body).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(paged.body.items.map((job: any) => job.id)).toEqual([a.id]);
    expect((await rest(api, 'GET', path, { token: fresh.token, query: { project_id: project.id } })).body.items.map((job: any) => job.id)).toEqual([b.id]);
    expect((await rest(api, 'GET', path, { token: fresh.token, query: { status: 'cancelled' } })).body.items.map((job: any) => job.id)).toEqual([c.id]);
    // A project of another workspace, or of another organization, is 404 (as for assessments, runs and traces), not an empty page.
    const elsewhere = await createProject(fresh.orgKey, (await createWorkspace(fresh.orgKey)).key);
    for (const foreign of [elsewhere.id, (await defaultProject(owner.orgKey)).id]) {
      const refused = await rest(api, 'GET', path, { token: fresh.token, query: { project_id: foreign } });
      expect(refused.status).toBe(404);
      expect(refused.body.type).toBe('not_found_error');
    }
    const bad = await rest(api, 'GET', path, { token: fresh.token, query: { status: 'nope', project_id: 'x' } });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual(expect.arrayContaining([['query', 'status'], ['query', 'project_id']]));
    const bounds = await rest(api, 'GET', path, { token: fresh.token, query: { page_size: 101, page: 0 } });
    expect(bounds.status).toBe(422);
    expect(locs(bounds.body)).toEqual(expect.arrayContaining([['query', 'page_size'], ['query', 'page']]));
    const gql = await runOperation(api, 'Evaluations', { org: fresh.orgKey, workspace: 'default', page_size: 1 }, fresh.token);
    expect(gql.body.data.evaluations).toMatchObject({ total: 3, page_size: 1, items: [{ id: c.id }] });
    const single = await runOperation(api, 'Evaluation', { org: fresh.orgKey, workspace: 'default', id: a.id }, fresh.token);
    expect(single.body.data.evaluation).toMatchObject({ id: a.id, created_by_user: { id: fresh.id } });
    // Another organization sees none of them.
    expect((await rest(api, 'GET', `${evaluationsPath(fresh.orgKey)}/evaluation/${a.id}`, { token: owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${ws()}/evaluation/${a.id}`, { token: owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${ws()}/evaluation/${a.id}/items`, { token: owner.token })).status).toBe(404);
  });
});

import crypto from 'node:crypto';
import { CUT_SQL } from '../../../migrations/0075-analytics-top-categories';
import { config, overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createProject, defaultProject, saveSession } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let other: TestUser;
let BASE: string;

const attack = (overrides: Record<string, any> = {}): Record<string, any> => ({ attack_name: 'tap', goal: 'leak the system prompt', goal_category: 'prompt_leak', ...overrides });
const locs = (body: { errors: { loc: unknown[]; type: string }[] }) => body.errors.map((item) => [item.loc.join('.'), item.type]).sort();

async function create(body: Record<string, unknown> = {}, query: Record<string, string> = {}, user = owner) {
  const res = await rest(api, 'POST', BASE, { token: user.token, body: { name: 'Assessment', ...body }, query });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

async function ingest(id: string, attacks: unknown[], user = owner) {
  return rest(api, 'POST', `${BASE}/${id}/traces/attacks`, { token: user.token, body: { attacks } });
}

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  other = await createUser();
  BASE = `/org/${owner.orgKey}/ws/default/airt/assessments`;
});

describe('create assessment (spec 11)', () => {
  it('creates a pending assessment in the default project with the creator and every field present', async () => {
    const session = await saveSession(api, owner, { title: 'target chat', visibility: 'workspace' });
    const res = await rest(api, 'POST', BASE, {
      token: roles.contributor.token,
      body: {
        name: 'Prompt leak sweep',
        description: 'nightly',
        attack_manifest: { attack: 'tap', goals: 3 },
        attacker_config: { temperature: 0.7 },
        target_model: 'model-x',
        session_id: session.id,
        workflow_run_id: 'run-7',
      },
    });
    expect(res.status).toBe(201);
    const project = await defaultProject(owner.orgKey);
    expect(res.body).toMatchObject({
      name: 'Prompt leak sweep',
      description: 'nightly',
      status: 'pending',
      project_id: project.id,
      user_id: roles.contributor.id,
      session_id: session.id,
      attack_manifest: [{ attack: 'tap', goals: 3 }],
      attacker_config: { temperature: 0.7 },
      target_config: null,
      target_model: 'model-x',
      judge_model: null,
      overall_asr: null,
      risk_score: null,
      analytics_snapshot: null,
      workflow_run_id: 'run-7',
      workflow_script: null,
      started_at: null,
      completed_at: null,
      sandbox_detail: null,
      created_by_user: { id: roles.contributor.id, username: roles.contributor.username, email: roles.contributor.email },
    });
  });

  it('takes the project from the query string and hides another workspace’s project with 404', async () => {
    const project = await createProject(owner.orgKey);
    const created = await create({}, { project_id: project.id });
    expect(created.project_id).toBe(project.id);
    const foreign = await defaultProject(other.orgKey);
    const res = await rest(api, 'POST', BASE, { token: owner.token, body: { name: 'x' }, query: { project_id: foreign.id } });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('answers 404 for a session of another organization or another member’s private session', async () => {
    const foreign = await saveSession(api, other);
    const res = await rest(api, 'POST', BASE, { token: owner.token, body: { name: 'x', session_id: foreign.id } });
    expect(res.status).toBe(404);
    const hidden = await saveSession(api, roles.contributor, { visibility: 'private' }, { orgKey: owner.orgKey });
    const res2 = await rest(api, 'POST', BASE, { token: owner.token, body: { name: 'x', session_id: hidden.id } });
    expect(res2.status).toBe(404);
  });

  it('reports every bad field with its location at once', async () => {
    const res = await rest(api, 'POST', BASE, {
      token: owner.token,
      body: { name: '', attack_manifest: [1, 'x'], attacker_config: [], session_id: 'nope', target_model: 'm'.repeat(256) },
      query: { project_id: 'not-a-uuid' },
    });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(locs(res.body)).toEqual([
      ['body.attack_manifest', 'list_type'],
      ['body.attacker_config', 'dict_type'],
      ['body.name', 'string_too_short'],
      ['body.session_id', 'uuid_parsing'],
      ['body.target_model', 'string_too_long'],
      ['query.project_id', 'uuid_parsing'],
    ]);
    const long = await rest(api, 'POST', BASE, { token: owner.token, body: { name: 'n'.repeat(256) } });
    expect(locs(long.body)).toEqual([['body.name', 'string_too_long']]);
    const missing = await rest(api, 'POST', BASE, { token: owner.token, body: {} });
    expect(locs(missing.body)).toEqual([['body.name', 'missing']]);
  });

  it('rejects a reader with 403', async () => {
    const res = await rest(api, 'POST', BASE, { token: roles.reader.token, body: { name: 'x' } });
    expect(res.status).toBe(403);
  });

  it('works as the GraphQL operation CreateAssessment', async () => {
    const res = await runOperation(api, 'CreateAssessment', { org: owner.orgKey, workspace: 'default', input: { name: 'gql', attack_manifest: [{ a: 1 }] } }, owner.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.create_assessment).toMatchObject({ name: 'gql', status: 'pending', attack_manifest: [{ a: 1 }], created_by_user: { id: owner.id } });
    const blank = await rest(api, 'POST', BASE, { token: owner.token, body: { name: ' \u200b ' } });
    expect([blank.status, blank.body.errors]).toEqual([422, [{ loc: ['body', 'name'], msg: 'must contain a visible character, not only spaces or invisible characters', type: 'value_error' }]]);
    const bad = await runOperation(api, 'CreateAssessment', { org: owner.orgKey, workspace: 'default', input: { name: '' } }, owner.token);
    expect(bad.body.errors![0].extensions).toMatchObject({ status: 422, errors: [expect.objectContaining({ loc: ['input', 'name'], type: 'string_too_short' })] });
  });
});

describe('list and get assessments (spec 12, 13)', () => {
  let user: TestUser;
  let path: string;
  const ids: string[] = [];
  let projectId: string;

  beforeAll(async () => {
    user = await createUser();
    path = `/org/${user.orgKey}/ws/default/airt/assessments`;
    projectId = (await createProject(user.orgKey)).id;
    for (let index = 0; index < 5; index += 1) {
      const res = await rest(api, 'POST', path, { token: user.token, body: { name: `A${index}` }, query: index % 2 ? { project_id: projectId } : {} });
      ids.push(res.body.id);
    }
  });

  it('lists newest first with spec pagination and the project filter', async () => {
    const all = await rest(api, 'GET', path, { token: user.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, page_size: 50, total: 5 });
    expect(all.body.items.map((item: { id: string }) => item.id)).toEqual([...ids].reverse());
    const second = await rest(api, 'GET', path, { token: user.token, query: { page: 2, page_size: 2 } });
    expect(second.body).toMatchObject({ page: 2, page_size: 2, total: 5 });
    expect(second.body.items.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    const filtered = await rest(api, 'GET', path, { token: user.token, query: { project_id: projectId } });
    expect(filtered.body.total).toBe(2);
    expect(filtered.body.items.map((item: { id: string }) => item.id)).toEqual([ids[3], ids[1]]);
    const past = await rest(api, 'GET', path, { token: user.token, query: { page: 9 } });
    expect(past.body).toMatchObject({ items: [], total: 5 });
    // Another workspace's project (here another organization's default one) is 404, as workflow runs answer.
    const foreign = await defaultProject(other.orgKey);
    const hidden = await rest(api, 'GET', path, { token: user.token, query: { project_id: foreign.id } });
    expect([hidden.status, hidden.body.type]).toEqual([404, 'not_found_error']);
  });

  it('rejects page 0 and page_size 0 or 101 with 422 at their query locations', async () => {
    const res = await rest(api, 'GET', path, { token: user.token, query: { page: 0, page_size: 101 } });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['query.page', 'greater_than_equal'], ['query.page_size', 'less_than_equal']]);
    const zero = await rest(api, 'GET', path, { token: user.token, query: { page_size: 0 } });
    expect(locs(zero.body)).toEqual([['query.page_size', 'greater_than_equal']]);
  });

  it('gets one assessment; a non-UUID id is 422 at the path, an unknown or foreign id 404', async () => {
    const res = await rest(api, 'GET', `${path}/${ids[0]}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('analytics_snapshot', null);
    const bad = await rest(api, 'GET', `${path}/nope`, { token: user.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ loc: ['path', 'assessment_id'], type: 'uuid_parsing' })]);
    expect((await rest(api, 'GET', `${path}/${crypto.randomUUID()}`, { token: user.token })).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws/default/airt/assessments/${ids[0]}`, { token: other.token })).status).toBe(404);
  });

  it('works as the GraphQL operations Assessments and Assessment', async () => {
    const list = await runOperation(api, 'Assessments', { org: user.orgKey, workspace: 'default', page_size: 2 }, user.token);
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.assessments).toMatchObject({ total: 5, page_size: 2 });
    const one = await runOperation(api, 'Assessment', { org: user.orgKey, workspace: 'default', assessment_id: ids[1] }, user.token);
    expect(one.body.data.assessment.id).toBe(ids[1]);
  });
});

describe('reading large assessments within the reply budget', () => {
  it('reads assessment lists and project navigation within the reply budget: aliased reads of large rows stop before they are all loaded', async () => {
    const project = (await rest(api, 'POST', `/org/${owner.orgKey}/ws/default/projects`, { token: owner.token, body: { key: 'large-scripts', name: 'Large scripts' } })).body;
    for (let index = 0; index < 3; index += 1) await create({ name: `Large ${index}`, workflow_script: 's'.repeat(50_000) }, { project_id: project.id });
    const before = config().MAX_REPLY_BYTES;
    overrideConfig({ MAX_REPLY_BYTES: 200 * 1024 });
    try {
      // One page (about 150 KB) is answered.
      const page = await rest(api, 'GET', BASE, { token: owner.token, query: { project_id: project.id } });
      expect([page.status, page.body.items?.length]).toEqual([200, 3]);
      // Aliased pages asking for ids only: their rows are loaded whole, so they count; the second is cut, the third reads nothing.
      const list = (alias: string) => `${alias}: assessments(org: "${owner.orgKey}", workspace: "default", project_id: "${project.id}", page_size: 100) { items { id } }`;
      const aliased = await countStatements(() => gql(api, `{ ${['a', 'b', 'c', 'd'].map(list).join(' ')} }`, {}, owner.token));
      expect(aliased.result.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
      expect(aliased.statements.filter((sql) => sql.includes('FROM airt_assessments a WHERE') && sql.includes('loaded')).length).toBeLessThanOrEqual(2);
      // The same for a project's assessments in the navigation.
      // (Each alias asks for another limit: one batch each, where the same one would be read once.)
      const navigation = (alias: string, limit: number) => `${alias}: workspace(org: "${owner.orgKey}", workspace: "default") { projects(limit: 50) { assessments(limit: ${limit}) { id } } }`;
      const nested = await gql(api, `{ ${[3, 4, 5].map((limit) => navigation(`n${limit}`, limit)).join(' ')} }`, {}, owner.token);
      expect(nested.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
    } finally {
      overrideConfig({ MAX_REPLY_BYTES: before });
    }
  });
});

describe('update and delete assessments', () => {
  it('completes an assessment with completed_at and refuses to move it back with 409', async () => {
    const created = await create();
    const running = await rest(api, 'PATCH', `${BASE}/${created.id}`, { token: owner.token, body: { status: 'running', description: 'd' } });
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({ status: 'running', description: 'd', completed_at: null });
    expect(running.body.started_at).not.toBeNull();
    const done = await rest(api, 'PATCH', `${BASE}/${created.id}`, {
      token: owner.token,
      body: { status: 'completed', name: 'Done', sandbox_detail: { provider: 'docker', provider_sandbox_id: 'sb-1', state: 'stopped', total_runtime_seconds: 12.5 } },
    });
    expect(done.body).toMatchObject({
      status: 'completed',
      name: 'Done',
      sandbox_detail: { provider: 'docker', provider_sandbox_id: 'sb-1', state: 'stopped', total_runtime_seconds: 12.5 },
    });
    expect(done.body.completed_at).not.toBeNull();
    const again = await rest(api, 'PATCH', `${BASE}/${created.id}`, { token: owner.token, body: { status: 'completed' } });
    expect(again.status).toBe(200);
    expect(again.body.completed_at).toBe(done.body.completed_at);
    for (const status of ['running', 'pending', 'failed']) {
      const back = await rest(api, 'PATCH', `${BASE}/${created.id}`, { token: owner.token, body: { status } });
      expect(back.status).toBe(409);
      expect(back.body.type).toBe('conflict_error');
    }
  });

  it('sets completed_at on failed and rejects unknown statuses and bad sandbox details with 422', async () => {
    const created = await create();
    const failed = await rest(api, 'PATCH', `${BASE}/${created.id}`, { token: owner.token, body: { status: 'failed' } });
    expect(failed.body.completed_at).not.toBeNull();
    const bad = await rest(api, 'PATCH', `${BASE}/${created.id}`, { token: owner.token, body: { status: 'done', sandbox_detail: { provider: 'x' }, name: '' } });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([
      ['body.name', 'string_too_short'],
      ['body.sandbox_detail.provider_sandbox_id', 'missing'],
      ['body.sandbox_detail.state', 'missing'],
      ['body.status', 'enum'],
    ]);
  });

  it('deletes with a JSON reply, and the project counts its assessments', async () => {
    const project = await createProject(owner.orgKey);
    const first = await create({}, { project_id: project.id });
    await create({}, { project_id: project.id });
    const counts = await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/projects/${project.key}`, { token: owner.token });
    expect(counts.body.resource_counts.airt_assessments).toBe(2);
    await ingest(first.id, [attack()]);
    const reader = await rest(api, 'DELETE', `${BASE}/${first.id}`, { token: roles.reader.token });
    expect(reader.status).toBe(403);
    const res = await rest(api, 'DELETE', `${BASE}/${first.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: first.id, deleted: true });
    expect((await rest(api, 'GET', `${BASE}/${first.id}`, { token: owner.token })).status).toBe(404);
    const after = await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/projects/${project.key}`, { token: owner.token });
    expect(after.body.resource_counts.airt_assessments).toBe(1);
  });

  it('works as the GraphQL operations UpdateAssessment and DeleteAssessment', async () => {
    const created = await create();
    const vars = { org: owner.orgKey, workspace: 'default', assessment_id: created.id };
    const updated = await runOperation(api, 'UpdateAssessment', { ...vars, input: { status: 'failed' } }, owner.token);
    expect(updated.body.data.update_assessment.status).toBe('failed');
    const deleted = await runOperation(api, 'DeleteAssessment', vars, owner.token);
    expect(deleted.body.data.delete_assessment).toEqual({ id: created.id, deleted: true });
  });
});

describe('attack spans (spec 14 and ingest)', () => {
  it('ingests a batch (201), moves pending → running and reads it back in ingest order with every default filled', async () => {
    const created = await create();
    const res = await ingest(created.id, [
      attack({ asr: 0.5, category: 'jailbreak', is_jailbreak: true, best_score: 8, transforms: ['base64', 'leet'], finished_trials: 4, total_trials: 5, execution_time_s: 2 }),
      attack({
        attack_name: 'crescendo',
        goal_category: 'harm',
        asr: 0.25,
        category: 'jailbreak',
        best_score: 3,
        best_candidate_parts: [{ kind: 'text', text: 'hi' }, { kind: 'image', source: { ref: 'url', url: 'https://example.test/a.png', media_type: 'image/png' } }],
        best_modality_scores: { text: 0.5, image: 1 },
        transforms: ['base64'],
        finished_trials: 6,
        total_trials: 6,
        execution_time_s: 3,
      }),
      attack({ attack_name: 'pair', asr: 0 }),
    ]);
    expect(res.status).toBe(201);
    expect(res.body.ingested).toBe(3);
    expect(res.body.assessment.status).toBe('running');
    expect(res.body.assessment.started_at).not.toBeNull();
    expect(res.body.assessment.overall_asr).toBeCloseTo(0.25, 10);
    // risk = 10 × (0.7 × 0.25 + 0.3 × 1/3) = 2.75
    expect(res.body.assessment.risk_score).toBe(2.75);
    expect(res.body.assessment.analytics_snapshot).toMatchObject({
      total_attacks: 3,
      total_jailbreaks: 1,
      by_category: { jailbreak: { attacks: 2, mean_asr: 0.375, jailbreaks: 1, best_score: 8 }, '': { attacks: 1, mean_asr: 0, jailbreaks: 0, best_score: 0 } },
      by_goal_category: { prompt_leak: { attacks: 2, mean_asr: 0.25, jailbreaks: 1, best_score: 8 }, harm: { attacks: 1, mean_asr: 0.25, jailbreaks: 0, best_score: 3 } },
    });

    const spans = await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: roles.reader.token });
    expect(spans.status).toBe(200);
    expect(spans.body.map((span: { attack_name: string }) => span.attack_name)).toEqual(['tap', 'crescendo', 'pair']);
    expect(spans.body[2]).toEqual({
      attack_name: 'pair',
      goal: 'leak the system prompt',
      goal_category: 'prompt_leak',
      asr: 0,
      attacker_model: '',
      target_model: '',
      evaluator_model: '',
      best_candidate: '',
      best_candidate_parts: null,
      best_response: '',
      best_response_parts: null,
      best_modality_scores: null,
      best_score: 0,
      category: '',
      sub_category: '',
      execution_time_s: 0,
      finished_trials: 0,
      total_trials: 0,
      is_jailbreak: false,
      span_id: '',
      trace_id: '',
      transforms: [],
    });
    expect(spans.body[1].best_candidate_parts).toEqual([
      { kind: 'text', text: 'hi', caption: null, transform: null, variant: null, source: null },
      {
        kind: 'image',
        text: null,
        caption: null,
        transform: null,
        variant: null,
        source: { ref: 'url', url: 'https://example.test/a.png', media_type: 'image/png', artifact_oid: null, byte_size: null, detail: null, file_id: null, filename: null },
      },
    ]);
    const page = await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: owner.token, query: { limit: 1, offset: 1 } });
    expect(page.body.map((span: { attack_name: string }) => span.attack_name)).toEqual(['crescendo']);
    // The window and what lies beyond it: the count of every span, and the next window while there is one.
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('link')).toBe(`</api/v1${BASE}/${created.id}/traces/attacks?limit=1&offset=2>; rel="next"`);
    const last = await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: owner.token, query: { limit: 2, offset: 1 } });
    expect([last.body.length, last.headers.get('x-total-count'), last.headers.get('link')]).toEqual([2, '3', null]);

    const analytics = await rest(api, 'GET', `${BASE}/${created.id}/analytics`, { token: owner.token });
    expect(analytics.status).toBe(200);
    expect(analytics.body).toMatchObject({ risk_score: 2.75, total_attacks: 3, total_trials: 11 });
    expect(analytics.body.overall_asr).toBeCloseTo(0.25, 10);
    expect(analytics.body.analytics_snapshot.total_attacks).toBe(3);

    const stats = await rest(api, 'GET', `${BASE}/${created.id}/traces`, { token: owner.token });
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      total_spans: 3 + 10 + 2,
      attack_spans: 3,
      trial_spans: 10,
      transform_spans: 2,
      total_jailbreaks: 1,
      max_score: 8,
      avg_score: 11 / 3,
      total_duration_s: 5,
      avg_trial_time_ms: 500,
      attack_names: ['crescendo', 'pair', 'tap'],
    });

    const got = await rest(api, 'GET', `${BASE}/${created.id}`, { token: owner.token });
    expect(got.body.analytics_snapshot.by_goal_category.harm.attacks).toBe(1);
  });

  it('keeps the 100 categories with the most attacks in the analytics snapshot, however many distinct ones the attacks bring', async () => {
    const created = await create();
    const many = Array.from({ length: 150 }, (_, index) => attack({ category: `c${String(index).padStart(3, '0')}`, goal_category: `g${String(index).padStart(3, '0')}` }));
    expect((await ingest(created.id, [...many, attack({ category: 'z-most', goal_category: 'z-most' }), attack({ category: 'z-most', goal_category: 'z-most' })])).status).toBe(201);
    const res = await rest(api, 'GET', `${BASE}/${created.id}`, { token: owner.token });
    const snapshot = res.body.analytics_snapshot;
    expect(snapshot.total_attacks).toBe(152);
    const expected = ['z-most', ...many.slice(0, 99).map((item) => item.category)].sort();
    expect(Object.keys(snapshot.by_category).sort()).toEqual(expected);
    expect(snapshot.by_category['z-most']).toMatchObject({ attacks: 2 });
    expect(Object.keys(snapshot.by_goal_category)).toHaveLength(100);
    expect(snapshot.by_goal_category['z-most']).toMatchObject({ attacks: 2 });
  });

  it('cuts snapshots written before to their 100 categories with the most attacks (migration 0075)', async () => {
    const created = await create();
    expect((await ingest(created.id, [attack({ category: 'kept' })])).status).toBe(201);
    const wide = Object.fromEntries(Array.from({ length: 120 }, (_, index) => [`w${String(index).padStart(3, '0')}`, { attacks: index === 7 ? 50 : 1 }]));
    await database().query(`UPDATE airt_assessments SET analytics_snapshot = jsonb_set(analytics_snapshot, '{by_category}', :wide::jsonb) WHERE id = :id`, {
      replacements: { wide: JSON.stringify(wide), id: created.id },
    });
    await database().query(CUT_SQL);
    // A hand-made snapshot whose other dimension is no object is cut all the same, the other left as it was.
    const odd = await create();
    expect((await ingest(odd.id, [attack({ category: 'kept' })])).status).toBe(201);
    await database().query(`UPDATE airt_assessments SET analytics_snapshot = jsonb_set(jsonb_set(analytics_snapshot, '{by_goal_category}', :wide::jsonb), '{by_category}', 'null') WHERE id = :id`, {
      replacements: { wide: JSON.stringify(wide), id: odd.id },
    });
    await database().query(CUT_SQL);
    const oddSnapshot = (await rest(api, 'GET', `${BASE}/${odd.id}`, { token: owner.token })).body.analytics_snapshot;
    expect([oddSnapshot.by_category, Object.keys(oddSnapshot.by_goal_category).length]).toEqual([null, 100]);
    const snapshot = (await rest(api, 'GET', `${BASE}/${created.id}`, { token: owner.token })).body.analytics_snapshot;
    expect(Object.keys(snapshot.by_category)).toHaveLength(100);
    expect(snapshot.by_category.w007).toEqual({ attacks: 50 });
    expect(snapshot.by_category.w119).toBeUndefined();
    // What was small is left as it was.
    expect(Object.keys(snapshot.by_goal_category)).toEqual(['prompt_leak']);
    expect(snapshot.total_attacks).toBe(1);
  });

  it('answers empty stats, null analytics and an empty list before any ingest', async () => {
    const created = await create();
    expect((await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: owner.token })).body).toEqual([]);
    const stats = await rest(api, 'GET', `${BASE}/${created.id}/traces`, { token: owner.token });
    expect(stats.body).toMatchObject({ total_spans: 0, attack_spans: 0, max_score: null, avg_score: null, avg_trial_time_ms: null, attack_names: [] });
    const analytics = await rest(api, 'GET', `${BASE}/${created.id}/analytics`, { token: owner.token });
    expect(analytics.body).toEqual({ risk_score: null, overall_asr: null, total_attacks: 0, total_trials: 0, analytics_snapshot: null });
  });

  it('refuses media source URLs a dashboard link would run (javascript:, vbscript:, however spelled), and takes others', async () => {
    const created = await create();
    const withUrl = (url: string) => attack({ best_candidate_parts: [{ kind: 'image', source: { ref: 'url', url } }] });
    const refused = ['javascript:alert(1)', '  JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', '\u0001javascript:alert(1)', 'vbscript:msgbox(1)', 'DATA:text/html,x'];
    const res = await ingest(created.id, refused.map(withUrl));
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(refused.map((_, index) => [`body.attacks.${index}.best_candidate_parts.0.source.url`, 'value_error']));
    const taken = await ingest(created.id, ['https://cdn.example.com/a.png', 's3://bucket/a.png', 'javascript-notes/a.png'].map(withUrl));
    expect(taken.status).toBe(201);
  });

  it('refuses more finished trials than the record says it has (422 at finished_trials), and takes them when total_trials is 0 or left out (not known)', async () => {
    const created = await create();
    const refused = await ingest(created.id, [attack({ total_trials: 2, finished_trials: 10 })]);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ loc: ['body', 'attacks', 0, 'finished_trials'], msg: 'Input should be less than or equal to total_trials (2)', type: 'less_than_equal' }]);
    expect((await ingest(created.id, [attack({ total_trials: 10, finished_trials: 10 }), attack({ finished_trials: 10 }), attack({ total_trials: 0, finished_trials: 5 })])).status).toBe(201);
  });

  it('rejects bad records with every problem and its location, and stores nothing of the batch', async () => {
    const created = await create();
    const res = await ingest(created.id, [
      attack(),
      { attack_name: 'x', asr: 1.5, finished_trials: -1, total_trials: 2.5, best_candidate_parts: 'text', transforms: 'base64' },
      attack({ best_response_parts: [{ kind: 'image', source: { ref: 'inline', data: 'iVBORw0KGgo=' } }, { text: 'no kind' }], best_modality_scores: { text: 'high' } }),
      attack({ best_candidate_parts: [{ kind: 'image', source: { url: 'data:image/png;base64,iVBORw0KGgo=' } }], execution_time_s: -2 }),
    ]);
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ['body.attacks.1.asr', 'less_than_equal'],
      ['body.attacks.1.best_candidate_parts', 'list_type'],
      ['body.attacks.1.finished_trials', 'greater_than_equal'],
      ['body.attacks.1.goal', 'missing'],
      ['body.attacks.1.goal_category', 'missing'],
      ['body.attacks.1.total_trials', 'int_from_float'],
      ['body.attacks.1.transforms', 'list_type'],
      ['body.attacks.2.best_modality_scores', 'float_parsing'],
      ['body.attacks.2.best_response_parts.0.source.data', 'extra_forbidden'],
      ['body.attacks.2.best_response_parts.0.source.ref', 'enum'],
      ['body.attacks.2.best_response_parts.1.kind', 'missing'],
      ['body.attacks.3.best_candidate_parts.0.source.url', 'value_error'],
      ['body.attacks.3.execution_time_s', 'greater_than_equal'],
    ]);
    const spans = await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: owner.token });
    expect(spans.body).toEqual([]);
    expect((await rest(api, 'GET', `${BASE}/${created.id}`, { token: owner.token })).body.status).toBe('pending');
  });

  it('accepts 1,000 records in a fixed number of statements and refuses 1,001 with 422', async () => {
    const created = await create();
    const ten = await countStatements(() => ingest(created.id, Array.from({ length: 10 }, (_, index) => attack({ asr: index / 10 }))));
    expect(ten.result.status).toBe(201);
    const thousand = await countStatements(() => ingest(created.id, Array.from({ length: 1000 }, (_, index) => attack({ asr: (index % 10) / 10 }))));
    expect(thousand.result.status).toBe(201);
    expect(thousand.result.body.assessment.analytics_snapshot.total_attacks).toBe(1010);
    expect(thousand.statements.length).toBe(ten.statements.length);
    const over = await ingest(created.id, Array.from({ length: 1001 }, () => attack()));
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'attacks'], type: 'too_long' })]);
    const empty = await ingest(created.id, []);
    expect(empty.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'attacks'], type: 'too_short' })]);
    const spans = await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: owner.token });
    expect(spans.body).toHaveLength(1010);
  });

  it('loses nothing when concurrent ingests write into one assessment', async () => {
    const created = await create();
    const batches = Array.from({ length: 8 }, (_, batch) => Array.from({ length: 25 }, (_, index) => attack({ asr: ((batch * 25 + index) % 7) / 7, is_jailbreak: index % 5 === 0 })));
    const replies = await Promise.all(batches.map((batch) => ingest(created.id, batch)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(8).fill(201));
    const all = batches.flat();
    const mean = all.reduce((sum, item) => sum + item.asr, 0) / all.length;
    const jailbreaks = all.filter((item) => item.is_jailbreak).length;
    const analytics = await rest(api, 'GET', `${BASE}/${created.id}/analytics`, { token: owner.token });
    expect(analytics.body.total_attacks).toBe(200);
    expect(analytics.body.overall_asr).toBeCloseTo(mean, 10);
    expect(analytics.body.risk_score).toBeCloseTo(Math.round(10 * (0.7 * mean + 0.3 * (jailbreaks / 200)) * 100) / 100, 10);
    expect(analytics.body.analytics_snapshot.total_jailbreaks).toBe(jailbreaks);
    const spans = await rest(api, 'GET', `${BASE}/${created.id}/traces/attacks`, { token: owner.token });
    expect(spans.body).toHaveLength(200);
  });

  it('refuses an ingest into a finished assessment (409), from a reader (403), and for unknown ids (404)', async () => {
    const created = await create();
    await rest(api, 'PATCH', `${BASE}/${created.id}`, { token: owner.token, body: { status: 'completed' } });
    const finished = await ingest(created.id, [attack()]);
    expect(finished.status).toBe(409);
    const open = await create();
    expect((await ingest(open.id, [attack()], roles.reader)).status).toBe(403);
    expect((await ingest(crypto.randomUUID(), [attack()])).status).toBe(404);
    const bad = await rest(api, 'POST', `${BASE}/nope/traces/attacks`, { token: owner.token, body: { attacks: [attack()] } });
    expect(bad.body.errors).toEqual([expect.objectContaining({ loc: ['path', 'assessment_id'], type: 'uuid_parsing' })]);
  });

  it('works as the GraphQL operations IngestAssessmentAttacks, AssessmentAttacks, AssessmentAnalytics and AssessmentTraceStats', async () => {
    const created = await create();
    const vars = { org: owner.orgKey, workspace: 'default', assessment_id: created.id };
    const ingested = await runOperation(api, 'IngestAssessmentAttacks', { ...vars, input: { attacks: [attack({ asr: 1, is_jailbreak: true })] } }, owner.token);
    expect(ingested.body.errors).toBeUndefined();
    expect(ingested.body.data.ingest_assessment_attacks).toMatchObject({ ingested: 1, assessment: { status: 'running', overall_asr: 1, risk_score: 10 } });
    const spans = await runOperation(api, 'AssessmentAttacks', vars, owner.token);
    expect(spans.body.data.assessment_attacks).toEqual([expect.objectContaining({ attack_name: 'tap', asr: 1, is_jailbreak: true, transforms: [] })]);
    const analytics = await runOperation(api, 'AssessmentAnalytics', vars, owner.token);
    expect(analytics.body.data.assessment_analytics).toMatchObject({ risk_score: 10, total_attacks: 1 });
    const stats = await runOperation(api, 'AssessmentTraceStats', vars, owner.token);
    expect(stats.body.data.assessment_trace_stats).toMatchObject({ attack_spans: 1, total_jailbreaks: 1 });
    const bad = await runOperation(api, 'IngestAssessmentAttacks', { ...vars, input: { attacks: [{ attack_name: 'x', goal: 'g', goal_category: 'c', asr: 2 }] } }, owner.token);
    expect(bad.body.errors![0].extensions).toMatchObject({ status: 422, errors: [expect.objectContaining({ loc: ['input', 'attacks', 0, 'asr'], type: 'less_than_equal' })] });
  });
});

describe('inputs at the edges', () => {
  it('refuses JSON nested deeper than 64 levels with 422 at the field, and past 128 before it is parsed, not a crash', async () => {
    const nested = (levels: number) => `{"name": "deep", "attack_manifest": [{"nested": ${'['.repeat(levels)}{}${']'.repeat(levels)}}]}`;
    const deep = await rest(api, 'POST', BASE, { token: owner.token, rawBody: nested(100) });
    expect(deep.status).toBe(422);
    expect(deep.body.errors[0]).toMatchObject({ type: 'value_error', loc: expect.arrayContaining(['body', 'attack_manifest']) });
    const deeper = await rest(api, 'POST', BASE, { token: owner.token, rawBody: nested(5000) });
    expect(deeper.status).toBe(422);
    expect(deeper.body.errors[0]).toMatchObject({ type: 'json_invalid', loc: ['body', 173] });
  });

  it('bounds best_score and execution_time_s so the aggregates stay finite', async () => {
    const { id } = await create();
    const res = await ingest(id, [attack({ best_score: 1e300, execution_time_s: 1e300 })]);
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ['body.attacks.0.best_score', 'less_than_equal'],
      ['body.attacks.0.execution_time_s', 'less_than_equal'],
    ]);
  });

  it('reports trace stats whose trial sums pass 2^31', async () => {
    const { id } = await create();
    for (let batch = 0; batch < 3; batch += 1) {
      const res = await ingest(id, Array.from({ length: 1000 }, () => attack({ finished_trials: 1_000_000, total_trials: 1_000_000 })));
      expect(res.status).toBe(201);
    }
    const stats = await rest(api, 'GET', `${BASE}/${id}/traces`, { token: owner.token });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ attack_spans: 3000, trial_spans: 3_000_000_000, total_spans: 3_000_003_000 + stats.body.transform_spans });
  });
});

import crypto from 'node:crypto';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createGroup, createProject, defaultProject } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let other: TestUser;
let RUNS: string;
let projectId: string;

const locs = (body: { errors: { loc: unknown[]; type: string }[] }) => body.errors.map((item) => [item.loc.join('.'), item.type]).sort();

async function createRun(body: Record<string, unknown> = {}, project = projectId, user = owner) {
  const res = await rest(api, 'POST', RUNS, { token: user.token, query: { project_id: project }, body: { definition_id: crypto.randomUUID(), ...body } });
  if (res.status !== 201) throw new Error(`create run failed: ${res.status} ${res.text}`);
  return res.body;
}

const start = (id: string, project: string | null = projectId, user = owner) =>
  rest(api, 'POST', `${RUNS}/${id}/start`, { token: user.token, query: project ? { project_id: project } : {} });
const cancel = (id: string, project = projectId, user = owner) => rest(api, 'POST', `${RUNS}/${id}/cancel`, { token: user.token, query: { project_id: project } });

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  other = await createUser();
  RUNS = `/org/${owner.orgKey}/ws/default/workflows/runs`;
  projectId = (await defaultProject(owner.orgKey)).id;
});

describe('create and list workflow runs', () => {
  it('creates a pending run (201) with every summary field', async () => {
    const definition = crypto.randomUUID();
    const group = await createGroup(api, owner, { kind: 'workflow_run', project_id: projectId });
    const res = await rest(api, 'POST', RUNS, {
      token: roles.contributor.token,
      query: { project_id: projectId },
      body: { definition_id: definition, title: 'Nightly', host_kind: 'sandbox', session_group_id: group.id },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      definition_id: definition,
      project_id: projectId,
      status: 'pending',
      title: 'Nightly',
      host_kind: 'sandbox',
      session_group_id: group.id,
      runtime_id: null,
      error: null,
      last_fact_seq: 0,
      started_at: null,
      finished_at: null,
      run_heartbeat_at: null,
    });
    const plain = await createRun();
    expect(plain.host_kind).toBe('worker');
  });

  it('requires project_id in the query (422) and hides another workspace’s project (404)', async () => {
    const missing = await rest(api, 'POST', RUNS, { token: owner.token, body: { definition_id: crypto.randomUUID() } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'project_id'], type: 'missing' })]);
    const bad = await rest(api, 'POST', RUNS, { token: owner.token, query: { project_id: 'x' }, body: { definition_id: 'y', title: 5 } });
    expect(locs(bad.body)).toEqual([['body.definition_id', 'uuid_parsing'], ['body.title', 'string_type'], ['query.project_id', 'uuid_parsing']]);
    const foreign = await rest(api, 'POST', RUNS, { token: owner.token, query: { project_id: (await defaultProject(other.orgKey)).id }, body: { definition_id: crypto.randomUUID() } });
    expect(foreign.status).toBe(404);
  });

  it('links only a workflow_run session group of the workspace', async () => {
    const worker = await createGroup(api, owner, { kind: 'worker_run', project_id: projectId });
    const wrongKind = await rest(api, 'POST', RUNS, { token: owner.token, query: { project_id: projectId }, body: { definition_id: crypto.randomUUID(), session_group_id: worker.id } });
    expect(wrongKind.status).toBe(422);
    expect(wrongKind.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'session_group_id'] })]);
    const foreignGroup = await createGroup(api, other, { kind: 'workflow_run' });
    const foreign = await rest(api, 'POST', RUNS, { token: owner.token, query: { project_id: projectId }, body: { definition_id: crypto.randomUUID(), session_group_id: foreignGroup.id } });
    expect(foreign.status).toBe(404);
  });

  it('rejects a reader with 403', async () => {
    const res = await rest(api, 'POST', RUNS, { token: roles.reader.token, query: { project_id: projectId }, body: { definition_id: crypto.randomUUID() } });
    expect(res.status).toBe(403);
  });

  it('lists the runs of a project newest first', async () => {
    const user = await createUser();
    const path = `/org/${user.orgKey}/ws/default/workflows/runs`;
    const project = await createProject(user.orgKey);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const res = await rest(api, 'POST', path, { token: user.token, query: { project_id: project.id }, body: { definition_id: crypto.randomUUID() } });
      ids.push(res.body.id);
    }
    await rest(api, 'POST', path, { token: user.token, query: { project_id: (await defaultProject(user.orgKey)).id }, body: { definition_id: crypto.randomUUID() } });
    const res = await rest(api, 'GET', path, { token: user.token, query: { project_id: project.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, limit: 20, total_pages: 1, has_next: false, has_previous: false });
    expect(res.body.runs.map((run: { id: string }) => run.id)).toEqual([...ids].reverse());
    const all = await rest(api, 'GET', path, { token: user.token });
    expect(all.body.total).toBe(4);
    const bad = await rest(api, 'GET', path, { token: user.token, query: { status: ['running', 'paused'], project_id: 'x' } });
    expect(locs(bad.body)).toEqual([['query.project_id', 'uuid_parsing'], ['query.status.1', 'enum']]);
    const range = await rest(api, 'GET', path, { token: user.token, query: { page: 0, limit: 101 } });
    expect(locs(range.body)).toEqual([['query.limit', 'less_than_equal'], ['query.page', 'greater_than_equal']]);
  });
});

describe('start and cancel (spec 15)', () => {
  it('starts a pending run with started_at and run_heartbeat_at; starting again is 409', async () => {
    const run = await createRun();
    const res = await start(run.id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('running');
    expect(res.body.started_at).not.toBeNull();
    expect(res.body.run_heartbeat_at).not.toBeNull();
    expect((await start(run.id, null)).status).toBe(409);
  });

  it('cancels a pending run with finished_at', async () => {
    const run = await createRun();
    const res = await cancel(run.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: run.id, status: 'cancelled' });
    expect(res.body.finished_at).not.toBeNull();
    const again = await cancel(run.id);
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('conflict_error');
  });

  it('refuses to cancel a running run with 409 conflict_error: an active host cannot be interrupted', async () => {
    const run = await createRun();
    await start(run.id);
    const res = await cancel(run.id);
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
    expect(res.body.detail).toMatch(/cannot be interrupted/);
  });

  it('answers 404 for a run of another project, 422 for bad ids and a missing project, 403 for a reader', async () => {
    const run = await createRun();
    const otherProject = await createProject(owner.orgKey);
    expect((await cancel(run.id, otherProject.id)).status).toBe(404);
    expect((await start(run.id, otherProject.id)).status).toBe(404);
    expect((await cancel(crypto.randomUUID())).status).toBe(404);
    const bad = await rest(api, 'POST', `${RUNS}/nope/cancel`, { token: owner.token });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([['path.run_id', 'uuid_parsing'], ['query.project_id', 'missing']]);
    expect((await cancel(run.id, projectId, roles.reader)).status).toBe(403);
    expect((await start(run.id, projectId, roles.reader)).status).toBe(403);
  });

  it('lets exactly one of a racing start and cancel win on each pending run', async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, () => createRun()));
    const outcomes = await Promise.all(runs.map(async (run) => Promise.all([start(run.id), cancel(run.id)])));
    for (const [started, cancelled] of outcomes) {
      expect([started.status, cancelled.status].sort()).toEqual([200, 409]);
      const winner = started.status === 200 ? started.body : cancelled.body;
      expect(['running', 'cancelled']).toContain(winner.status);
    }
    const list = await rest(api, 'GET', RUNS, { token: owner.token, query: { status: ['running', 'cancelled'], limit: 100 } });
    const byId = new Map(list.body.runs.map((run: { id: string; status: string }) => [run.id, run.status]));
    for (const [index, [started]] of outcomes.entries()) expect(byId.get(runs[index].id)).toBe(started.status === 200 ? 'running' : 'cancelled');
  });

  it('works as the GraphQL operations CreateWorkflowRun, WorkflowRuns, StartWorkflowRun and CancelWorkflowRun', async () => {
    const vars = { org: owner.orgKey, workspace: 'default' };
    const created = await runOperation(api, 'CreateWorkflowRun', { ...vars, project_id: projectId, input: { definition_id: crypto.randomUUID(), title: 'gql' } }, owner.token);
    expect(created.body.errors).toBeUndefined();
    const run = created.body.data.create_workflow_run;
    expect(run).toMatchObject({ status: 'pending', title: 'gql' });
    const list = await runOperation(api, 'WorkflowRuns', { ...vars, project_id: projectId }, owner.token);
    expect(list.body.data.workflow_runs.runs.map((item: { id: string }) => item.id)).toContain(run.id);
    const second = (await runOperation(api, 'CreateWorkflowRun', { ...vars, project_id: projectId, input: { definition_id: crypto.randomUUID() } }, owner.token)).body.data.create_workflow_run;
    const started = await runOperation(api, 'StartWorkflowRun', { ...vars, run_id: run.id }, owner.token);
    expect(started.body.data.start_workflow_run.status).toBe('running');
    const refused = await runOperation(api, 'CancelWorkflowRun', { ...vars, run_id: run.id, project_id: projectId }, owner.token);
    expect(refused.body.errors![0].extensions).toMatchObject({ status: 409, type: 'conflict_error' });
    const cancelled = await runOperation(api, 'CancelWorkflowRun', { ...vars, run_id: second.id, project_id: projectId }, owner.token);
    expect(cancelled.body.data.cancel_workflow_run.status).toBe('cancelled');
  });
});

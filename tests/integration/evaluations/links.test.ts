import crypto from 'node:crypto';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { catalogName } from '../../factories/catalogs';
import { createEvaluation, evaluationsPath, items, publishVerifiedTask } from '../../factories/evaluations';
import { createGroup, createProject, createWorkspace, defaultProject, saveSession, sessionsPath } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let owner: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;
const task = catalogName('linked');

beforeAll(async () => {
  ({ owner, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
  await publishVerifiedTask(api, owner, { name: task, version: '1.0.0' }, org);
  await publishVerifiedTask(api, owner, { name: task, version: '2.0.0' }, org);
});

describe('session groups of evaluation items', () => {
  it('links a group to an evaluation and an item of the workspace, and 404s for anything else', async () => {
    const job = await createEvaluation(api, owner, { task_names: [task] }, org);
    const [item] = await items(api, owner, job.id, org);
    const group = await createGroup(api, owner, { kind: 'evaluation_item', evaluation_id: job.id, evaluation_item_id: item.id }, { orgKey: org });
    expect(group).toMatchObject({ evaluation_id: job.id, evaluation_item_id: item.id });
    const projectId = (await defaultProject(org)).id;
    const post = (body: Record<string, unknown>, path = `${sessionsPath(org)}/groups`) =>
      rest(api, 'POST', path, { token: owner.token, body: { kind: 'evaluation_item', project_id: projectId, ...body } });
    expect((await post({ evaluation_id: crypto.randomUUID() })).status).toBe(404);
    expect((await post({ evaluation_item_id: crypto.randomUUID() })).status).toBe(404);
    const other = await createEvaluation(api, owner, { dataset: [{}] }, org);
    // An item of another evaluation than the one named.
    expect((await post({ evaluation_id: other.id, evaluation_item_id: item.id })).status).toBe(404);
    // Another workspace of the same organization, and another organization.
    const workspace = await createWorkspace(org);
    const otherProject = await createProject(org, workspace.key);
    expect((await post({ project_id: otherProject.id, evaluation_id: job.id }, `${sessionsPath(org, workspace.key)}/groups`)).status).toBe(404);
    const foreign = await createEvaluation(api, stranger, { dataset: [{}] });
    const res = await post({ evaluation_id: foreign.id });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
    // A reader meets 403 once the ids are valid.
    const denied = await rest(api, 'POST', `${sessionsPath(org)}/groups`, { token: reader.token, body: { kind: 'evaluation_item', project_id: projectId, evaluation_id: job.id } });
    expect(denied.status).toBe(403);
  });

  it('keeps a session of an evaluation item group from being deleted (409)', async () => {
    const job = await createEvaluation(api, owner, { dataset: [{}] }, org);
    const [item] = await items(api, owner, job.id, org);
    const group = await createGroup(api, owner, { kind: 'evaluation_item', evaluation_id: job.id, evaluation_item_id: item.id }, { orgKey: org });
    const session = await saveSession(api, owner, { group_id: group.id, origin: 'eval' }, { orgKey: org });
    const res = await rest(api, 'DELETE', `${sessionsPath(org)}/${session.id}`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
  });

  it("counts a project's evaluations in resource_counts", async () => {
    const fresh = await createUser();
    await createEvaluation(api, fresh, { dataset: [{}] });
    await createEvaluation(api, fresh, { dataset: [{}] });
    const project = await rest(api, 'GET', `/org/${fresh.orgKey}/ws/default/projects/default`, { token: fresh.token });
    expect(project.body.resource_counts).toMatchObject({ evaluations: 2 });
    // A project holding evaluations cannot be deleted.
    const extra = await createProject(fresh.orgKey);
    await createEvaluation(api, fresh, { dataset: [{}], project_id: extra.id });
    expect((await rest(api, 'DELETE', `/org/${fresh.orgKey}/ws/default/projects/${extra.key}`, { token: fresh.token })).status).toBe(409);
  });
});

describe('task versions referenced by evaluation items', () => {
  it('refuses to delete a task version an item references (409), and deletes an unreferenced one', async () => {
    const name = catalogName('ref');
    await publishVerifiedTask(api, owner, { name, version: '1.0.0' }, org);
    await publishVerifiedTask(api, owner, { name, version: '1.1.0' }, org);
    await createEvaluation(api, owner, { task_names: [`${name}@1.0.0`] }, org);
    const refused = await rest(api, 'DELETE', `/org/${org}/tasks/${name}/1.0.0`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('conflict_error');
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}/1.0.0`, { token: owner.token })).status).toBe(200);
    const deleted = await rest(api, 'DELETE', `/org/${org}/tasks/${name}/1.1.0`, { token: owner.token });
    expect(deleted.status).toBe(200);
  });
});

describe('dashboard navigation', () => {
  /** `count` projects, each with one evaluation of two items (one task, one dataset row), each item with a group and a session. */
  async function dashboard(count: number) {
    const user = await createUser();
    await publishVerifiedTask(api, user, { name: 'nav-task' });
    const set = await rest(api, 'POST', `/org/${user.orgKey}/task-sets`, { token: user.token, body: { name: 'nav-set', members: ['nav-task'] } });
    expect(set.status).toBe(201);
    for (let index = 0; index < count; index += 1) {
      const project = index === 0 ? await defaultProject(user.orgKey) : await createProject(user.orgKey);
      const job = await createEvaluation(api, user, { task_set: 'nav-set', dataset: [{}], project_id: project.id });
      for (const item of await items(api, user, job.id)) {
        const group = await createGroup(api, user, { kind: 'evaluation_item', evaluation_id: job.id, evaluation_item_id: item.id, project_id: project.id });
        await saveSession(api, user, { group_id: group.id, project_id: project.id, title: `s-${index}` });
      }
    }
    return user;
  }

  it('answers project → evaluations → items → task and session groups → sessions with the same statements for 2 and 8 projects', async () => {
    const small = await dashboard(2);
    const large = await dashboard(8);
    const run = (user: TestUser) => runOperation(api, 'ProjectEvaluationsDashboard', { org: user.orgKey, workspace: 'default', limit: 2 }, user.token);
    const a = await countStatements(() => run(small));
    const b = await countStatements(() => run(large));
    expect(a.result.body.errors).toBeUndefined();
    expect(b.result.body.errors).toBeUndefined();
    const projects = b.result.body.data.projects;
    expect(projects).toHaveLength(8);
    for (const project of projects) {
      expect(project.resource_counts.evaluations).toBe(1);
      const [evaluation] = project.evaluations;
      expect(evaluation.task_set).toMatchObject({ name: 'nav-set', member_count: 1 });
      expect(evaluation.created_by_user.username).toBe(large.username);
      expect(evaluation.items.map((item: any) => item.task?.name ?? null)).toEqual(['nav-task', null]);
      for (const item of evaluation.items) {
        expect(item.session_groups).toHaveLength(1);
        expect(item.session_groups[0].sessions).toHaveLength(1);
      }
    }
    expect(b.statements.length).toBe(a.statements.length);
  });

  it('keeps navigation fields out of REST replies', async () => {
    const job = await createEvaluation(api, owner, { dataset: [{}] }, org);
    const res = await rest(api, 'GET', `${evaluationsPath(org)}/evaluation/${job.id}`, { token: owner.token });
    expect(res.body).not.toHaveProperty('items');
    expect(res.body).not.toHaveProperty('task_set');
    expect(res.body).toHaveProperty('created_by_user');
  });
});

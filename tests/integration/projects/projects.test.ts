import crypto from 'node:crypto';
import { onStatement } from '../../../src/db/database';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { addProjectSessions, createProjectRow } from '../../factories/projects';
import { createGroup } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';
import { resolveProject } from '../../../src/modules/projects/projects.service';
import { OrganizationModel, WorkspaceModel, type ProjectModel } from '../../../models';

const api = useTestApp();

let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let outsider: TestUser;
let orgKey: string;
let WS: string;

beforeAll(async () => {
  ({ owner, contributor, reader, outsider, orgKey } = await createOrgWithRoles());
  WS = `/org/${orgKey}/ws/default`;
});

describe('GET WS/projects', () => {
  it('lists the projects of a workspace as a bare array, default project first, with resource counts', async () => {
    const extra = await createProjectRow(orgKey, 'default', { name: 'Extra' });
    const res = await rest(api, 'GET', `${WS}/projects`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body[0]).toEqual({
      id: expect.any(String),
      key: 'default',
      name: 'Default',
      description: null,
      workspace_id: expect.any(String),
      is_default: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      resource_counts: { sessions: 0, evaluations: 0, airt_assessments: 0, workflow_runs: 0, session_groups: 0 },
    });
    expect(res.body.map((project: { key: string }) => project.key)).toContain(extra.key);
  });

  it("hides another organization's projects with 404", async () => {
    const res = await rest(api, 'GET', `${WS}/projects`, { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('answers 404 for an unknown workspace', async () => {
    const res = await rest(api, 'GET', `/org/${orgKey}/ws/no-such-ws/projects`, { token: owner.token });
    expect(res.status).toBe(404);
  });

  it('requires authentication', async () => {
    expect((await rest(api, 'GET', `${WS}/projects`)).status).toBe(401);
  });
});

describe('POST WS/projects', () => {
  it('creates a project with 201', async () => {
    const res = await rest(api, 'POST', `${WS}/projects`, {
      token: contributor.token,
      body: { key: 'red-team-1', name: 'Red team', description: 'Attacks' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      key: 'red-team-1',
      name: 'Red team',
      description: 'Attacks',
      is_default: false,
      resource_counts: { sessions: 0, evaluations: 0, airt_assessments: 0, workflow_runs: 0, session_groups: 0 },
    });
    const workspace = await rest(api, 'GET', WS, { token: owner.token });
    expect(res.body.workspace_id).toBe(workspace.body.id);
    const got = await rest(api, 'GET', `${WS}/projects/red-team-1`, { token: reader.token });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(res.body.id);
  });

  it('answers 409 already_exists_error for a key taken in the workspace', async () => {
    await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'taken-key', name: 'One' } });
    const res = await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'taken-key', name: 'Two' } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('allows the same key in another workspace', async () => {
    const ws = await rest(api, 'POST', `/org/${orgKey}/ws`, { token: owner.token, body: { key: 'second-ws', name: 'Second' } });
    expect(ws.status).toBe(201);
    const res = await rest(api, 'POST', `/org/${orgKey}/ws/second-ws/projects`, { token: owner.token, body: { key: 'taken-key', name: 'Two' } });
    expect(res.status).toBe(201);
  });

  it.each([
    ['a 2-character key', { key: 'ab', name: 'x' }, ['body', 'key'], 'string_too_short'],
    ['a 101-character key', { key: 'a'.repeat(101), name: 'x' }, ['body', 'key'], 'string_too_long'],
    ['a key with capitals and underscores', { key: 'Bad_Key', name: 'x' }, ['body', 'key'], 'string_pattern_mismatch'],
    ['a key with a double hyphen', { key: 'double--dash', name: 'x' }, ['body', 'key'], 'string_pattern_mismatch'],
    ['an empty name', { key: 'fine-key', name: '' }, ['body', 'name'], 'string_too_short'],
    ['a 256-character name', { key: 'fine-key', name: 'n'.repeat(256) }, ['body', 'name'], 'string_too_long'],
    ['a 1001-character description', { key: 'fine-key', name: 'x', description: 'd'.repeat(1001) }, ['body', 'description'], 'string_too_long'],
    ['a numeric name', { key: 'fine-key', name: 7 }, ['body', 'name'], 'string_type'],
    ['a missing key', { name: 'x' }, ['body', 'key'], 'missing'],
  ])('rejects %s with 422 at the exact location', async (_label, body, loc, type) => {
    const res = await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc, type })]);
  });

  it('accepts the bounds: a 3- and a 100-character key, a 255-character name, a 1000-character description', async () => {
    const short = await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'abc', name: 'n' } });
    expect(short.status).toBe(201);
    const long = await rest(api, 'POST', `${WS}/projects`, {
      token: owner.token,
      body: { key: 'k'.repeat(100), name: 'n'.repeat(255), description: 'd'.repeat(1000) },
    });
    expect(long.status).toBe(201);
  });

  it("rejects a reader's project creation with 403", async () => {
    const res = await rest(api, 'POST', `${WS}/projects`, { token: reader.token, body: { key: 'reader-proj', name: 'R' } });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it("hides another organization's workspace from a project creation with 404", async () => {
    const res = await rest(api, 'POST', `${WS}/projects`, { token: outsider.token, body: { key: 'sneaky', name: 'S' } });
    expect(res.status).toBe(404);
  });

  it('creates and reads a project through GraphQL', async () => {
    const created = await runOperation(api, 'CreateProject', { org: orgKey, workspace: 'default', input: { key: 'gql-proj', name: 'GraphQL' } }, owner.token);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.create_project).toMatchObject({
      key: 'gql-proj',
      name: 'GraphQL',
      is_default: false,
      resource_counts: { sessions: 0, evaluations: 0, airt_assessments: 0, workflow_runs: 0, session_groups: 0 },
    });
    const read = await runOperation(api, 'Project', { org: orgKey, workspace: 'default', project_key: 'gql-proj' }, reader.token);
    expect(read.body.data.project).toMatchObject({ id: created.body.data.create_project.id, key: 'gql-proj' });
    const listed = await runOperation(api, 'Projects', { org: orgKey, workspace: 'default' }, reader.token);
    expect(listed.body.data.projects.map((project: { key: string }) => project.key)).toContain('gql-proj');
  });
});

describe('GET WS/projects/{project_key}', () => {
  it('answers 404 for an unknown key', async () => {
    const res = await rest(api, 'GET', `${WS}/projects/no-such-project`, { token: owner.token });
    expect(res.status).toBe(404);
  });

  it("hides another organization's project key from its own workspace path with 404", async () => {
    const project = await createProjectRow(orgKey);
    const res = await rest(api, 'GET', `/org/${outsider.orgKey}/ws/default/projects/${project.key}`, { token: outsider.token });
    expect(res.status).toBe(404);
  });
});

describe('DELETE WS/projects/{project_key}', () => {
  it('deletes an empty project and answers a JSON body', async () => {
    const project = await createProjectRow(orgKey);
    const res = await rest(api, 'DELETE', `${WS}/projects/${project.key}`, { token: contributor.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: project.id, key: project.key, deleted: true });
    expect((await rest(api, 'GET', `${WS}/projects/${project.key}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses to delete the default project with 400 invalid_error', async () => {
    const res = await rest(api, 'DELETE', `${WS}/projects/default`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_error');
  });

  it("rejects a reader's deletion with 403", async () => {
    const project = await createProjectRow(orgKey);
    const res = await rest(api, 'DELETE', `${WS}/projects/${project.key}`, { token: reader.token });
    expect(res.status).toBe(403);
  });

  it("hides another organization's project from a deletion with 404", async () => {
    const project = await createProjectRow(orgKey);
    const res = await rest(api, 'DELETE', `${WS}/projects/${project.key}`, { token: outsider.token });
    expect(res.status).toBe(404);
    expect((await rest(api, 'GET', `${WS}/projects/${project.key}`, { token: owner.token })).status).toBe(200);
  });

  it('refuses to delete a project that holds resources with 409 conflict_error, and counts them', async () => {
    const project = await createProjectRow(orgKey);
    await addProjectSessions(project.id, 2);
    const got = await rest(api, 'GET', `${WS}/projects/${project.key}`, { token: owner.token });
    expect(got.body.resource_counts).toEqual({ sessions: 2, evaluations: 0, airt_assessments: 0, workflow_runs: 0, session_groups: 0 });
    const res = await rest(api, 'DELETE', `${WS}/projects/${project.key}`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
    expect((await rest(api, 'GET', `${WS}/projects/${project.key}`, { token: owner.token })).status).toBe(200);
  });

  it('refuses to delete a project that holds a workflow run or a session group with 409 naming them (every module counts)', async () => {
    const project = await createProjectRow(orgKey);
    const run = await rest(api, 'POST', `${WS}/workflows/runs`, { token: owner.token, query: { project_id: project.id }, body: { definition_id: crypto.randomUUID() } });
    expect(run.status).toBe(201);
    await createGroup(api, owner, { project_id: project.id }, { orgKey });
    const got = await rest(api, 'GET', `${WS}/projects/${project.key}`, { token: owner.token });
    expect(got.body.resource_counts).toEqual({ sessions: 0, evaluations: 0, airt_assessments: 0, workflow_runs: 1, session_groups: 1 });
    const res = await rest(api, 'DELETE', `${WS}/projects/${project.key}`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
    expect(res.body.detail).toMatch(/session groups.*workflow runs|workflow runs.*session groups/);
    expect((await rest(api, 'GET', `${WS}/projects/${project.key}`, { token: owner.token })).status).toBe(200);
  });

  it('deletes a project while saves into it run: every request answers (the delete on one connection, never waiting for a second the saves hold)', async () => {
    const project = await createProjectRow(orgKey);
    // More saves than the test pool's connections, the delete among them.
    const saves = Array.from({ length: 12 }, () => rest(api, 'POST', `${WS}/sessions`, { token: owner.token, body: { id: crypto.randomUUID(), model: 'm', project_id: project.id } }));
    const deleting = rest(api, 'DELETE', `${WS}/projects/${project.key}`, { token: owner.token });
    const statuses = (await Promise.all(saves)).map((res) => res.status);
    const deleted = await deleting;
    // Each save ran before the delete (201, and the delete is refused: 409), after it (404), or waited on the
    // project's row while the delete removed it (409: its foreign key); none timed out.
    expect([200, 409]).toContain(deleted.status);
    expect(statuses.every((status) => status === 201 || status === 404 || status === 409)).toBe(true);
    if (deleted.status === 200) expect(statuses.filter((status) => status === 201)).toEqual([]);
  });

  it('deletes a project through GraphQL', async () => {
    const project = await createProjectRow(orgKey);
    const res = await runOperation(api, 'DeleteProject', { org: orgKey, workspace: 'default', project_key: project.key }, owner.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.delete_project).toEqual({ id: project.id, key: project.key, deleted: true });
  });
});

describe('batched project fields', () => {
  it('counts the resources of every listed project in one SQL statement', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const projects: ProjectModel[] = [];
    for (let index = 0; index < 4; index += 1) projects.push(await createProjectRow(org));
    await addProjectSessions(projects[1].id, 3);
    const statements: string[] = [];
    const stop = onStatement((sql) => statements.push(sql));
    const res = await rest(api, 'GET', `/org/${org}/ws/default/projects`, { token: boss.token });
    stop();
    expect(res.body).toHaveLength(5);
    const counted = res.body.find((project: { id: string }) => project.id === projects[1].id);
    expect(counted.resource_counts.sessions).toBe(3);
    expect(statements.filter((sql) => /FROM projects p WHERE p\.id = ANY/.test(sql))).toHaveLength(1);
  });

  it('resolves workspace.projects in GraphQL with one statement for all workspaces', async () => {
    const boss = await createUser();
    for (const key of ['ws-one', 'ws-two', 'ws-three']) {
      expect((await rest(api, 'POST', `/org/${boss.orgKey}/ws`, { token: boss.token, body: { key, name: key } })).status).toBe(201);
    }
    await createProjectRow(boss.orgKey, 'ws-two', { key: 'extra-two' });
    const statements: string[] = [];
    const stop = onStatement((sql) => statements.push(sql));
    const res = await runOperation(api, 'WorkspaceProjects', { org: boss.orgKey }, boss.token);
    stop();
    expect(res.body.errors).toBeUndefined();
    const byKey = Object.fromEntries(
      res.body.data.workspaces.workspaces.map((ws: { key: string; projects: { key: string }[] }) => [ws.key, ws.projects.map((p) => p.key)]),
    );
    expect(byKey).toEqual({ default: ['default'], 'ws-one': ['default'], 'ws-two': ['default', 'extra-two'], 'ws-three': ['default'] });
    expect(statements.filter((sql) => /FROM projects x WHERE x\.workspace_id = ANY/.test(sql))).toHaveLength(1);
  });

  it('keeps workspace.projects out of REST replies', async () => {
    const res = await rest(api, 'GET', WS, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('projects');
    const list = await rest(api, 'GET', `/org/${orgKey}/ws`, { token: owner.token });
    expect(list.body.workspaces[0]).not.toHaveProperty('projects');
  });
});

describe('resolveProject', () => {
  it("returns the workspace's default project for null and a given project by id", async () => {
    const org = await OrganizationModel.findOne({ where: { key: orgKey } });
    const workspace = (await WorkspaceModel.findOne({ where: { organization_id: org!.id, key: 'default' } }))!;
    const fallback = await resolveProject(workspace.id, null);
    expect(fallback.is_default).toBe(true);
    const project = await createProjectRow(orgKey);
    expect((await resolveProject(workspace, project.id)).key).toBe(project.key);
  });

  it("answers 404 for a project of another workspace or tenant", async () => {
    const org = await OrganizationModel.findOne({ where: { key: outsider.orgKey } });
    const foreignWorkspace = (await WorkspaceModel.findOne({ where: { organization_id: org!.id, key: 'default' } }))!;
    const project = await createProjectRow(orgKey);
    await expect(resolveProject({ workspace: foreignWorkspace }, project.id)).rejects.toMatchObject({ status: 404, type: 'not_found_error' });
  });
});

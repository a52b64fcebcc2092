import crypto from 'node:crypto';
import { createUser, type TestUser } from '../../factories/accounts';
import { createGroup, createProject, createWorkspace, saveSession } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;
let outsider: TestUser;

/** A workspace with `projects` projects, each with `per` assessments (attacks, a session) and `per` runs (a group with sessions). */
async function fillWorkspace(projects: number, per: number): Promise<string> {
  const ws = (await createWorkspace(user.orgKey)).key;
  const base = `/org/${user.orgKey}/ws/${ws}`;
  for (let p = 0; p < projects; p += 1) {
    const project = await createProject(user.orgKey, ws);
    for (let index = 0; index < per; index += 1) {
      const session = await saveSession(api, user, { project_id: project.id, title: `target ${p}.${index}` }, { ws });
      const assessment = await rest(api, 'POST', `${base}/airt/assessments`, {
        token: user.token,
        query: { project_id: project.id },
        body: { name: `A ${p}.${index}`, session_id: session.id },
      });
      await rest(api, 'POST', `${base}/airt/assessments/${assessment.body.id}/traces/attacks`, {
        token: user.token,
        body: { attacks: [{ attack_name: 'tap', goal: 'g', goal_category: 'c', asr: 0.5 }, { attack_name: 'pair', goal: 'g', goal_category: 'c', is_jailbreak: true }] },
      });
      const group = await createGroup(api, user, { kind: 'workflow_run', project_id: project.id }, { ws });
      await saveSession(api, user, { project_id: project.id, group_id: group.id, title: `run session ${p}.${index}` }, { ws });
      const run = await rest(api, 'POST', `${base}/workflows/runs`, {
        token: user.token,
        query: { project_id: project.id },
        body: { definition_id: crypto.randomUUID(), session_group_id: group.id },
      });
      expect(run.status).toBe(201);
    }
  }
  return ws;
}

let small: string;
let large: string;

beforeAll(async () => {
  [user, outsider] = await Promise.all([createUser(), createUser()]);
  small = await fillWorkspace(1, 1);
  large = await fillWorkspace(4, 3);
});

describe('GraphQL navigation for red-team dashboards', () => {
  it('resolves project → assessments → attacks, session, creator and project → runs → group → sessions in as many statements for 4×3 as for 1×1', async () => {
    const one = await countStatements(() => runOperation(api, 'RedTeamDashboard', { org: user.orgKey, workspace: small }, user.token));
    expect(one.result.body.errors).toBeUndefined();
    const many = await countStatements(() => runOperation(api, 'RedTeamDashboard', { org: user.orgKey, workspace: large }, user.token));
    expect(many.result.body.errors).toBeUndefined();
    const projects = many.result.body.data.workspace.projects;
    expect(projects).toHaveLength(4);
    for (const project of projects) {
      expect(project.assessments).toHaveLength(3);
      for (const assessment of project.assessments) {
        expect(assessment.attacks.map((attack: { attack_name: string }) => attack.attack_name)).toEqual(['tap', 'pair']);
        expect(assessment.session.title).toMatch(/^target /);
        expect(assessment.created_by_user.id).toBe(user.id);
        expect(assessment.status).toBe('running');
      }
      expect(project.workflow_runs).toHaveLength(3);
      for (const run of project.workflow_runs) {
        expect(run.session_group.kind).toBe('workflow_run');
        expect(run.session_group.sessions).toHaveLength(1);
      }
    }
    expect(many.statements.length).toBe(one.statements.length);
    // tenant, workspace, projects, assessments, runs, users, sessions, attacks, groups, group sessions: far below one per row.
    expect(many.statements.length).toBeLessThan(15);
  });

  it('keeps the navigation fields out of REST replies', async () => {
    const list = await rest(api, 'GET', `/org/${user.orgKey}/ws/${large}/airt/assessments`, { token: user.token });
    expect(list.body.items[0]).not.toHaveProperty('attacks');
    expect(list.body.items[0]).not.toHaveProperty('session');
    expect(list.body.items[0]).toHaveProperty('created_by_user');
  });

  it("shows another organization's member nothing", async () => {
    const res = await runOperation(api, 'RedTeamDashboard', { org: user.orgKey, workspace: large }, outsider.token);
    expect(res.body.data?.workspace ?? null).toBeNull();
    expect(res.body.errors![0].extensions.status).toBe(404);
  });
});

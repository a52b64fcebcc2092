import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createUser, type TestUser } from '../../factories/accounts';
import { createGroup, createProject, createWorkspace, saveSession } from '../../factories/sessions';
import { database, onStatement } from '../../../src/db/database';
import { gql } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;
let wsKey: string;

/** Runs a GraphQL request and counts the SQL statements it caused. */
async function countStatements<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = onStatement((sql) => statements.push(sql));
  try {
    return { result: await run(), statements };
  } finally {
    stop();
  }
}

const DASHBOARD = `query($o: String!, $w: String!, $limit: Int!) {
  sessions(org: $o, workspace: $w, limit: $limit, sort_by: created_at) {
    total
    sessions {
      id project_key project_name
      group { id kind session_count total_tokens }
      created_by { username }
      shared_by { username }
      creator { username }
      project { id key name }
      usage { total_message_count total_input_tokens }
      messages(limit: 2) { seq content }
    }
  }
}`;

beforeAll(async () => {
  user = await createUser();
  wsKey = (await createWorkspace(user.orgKey)).key;
  const projects = await Promise.all([createProject(user.orgKey, wsKey), createProject(user.orgKey, wsKey), createProject(user.orgKey, wsKey)]);
  const groups = [];
  for (let index = 0; index < 5; index += 1) {
    groups.push(await createGroup(api, user, { kind: index % 2 ? 'workflow' : 'worker_run', project_id: projects[0].id }, { ws: wsKey }));
  }
  for (let index = 0; index < 50; index += 1) {
    await saveSession(
      api,
      user,
      {
        id: crypto.randomUUID(),
        project_id: projects[index % 3].id,
        group_id: groups[index % 5].id,
        visibility: index % 2 ? 'workspace' : 'private',
        title: `Session ${index}`,
      },
      { ws: wsKey },
    );
  }
});

describe('GraphQL navigation for dashboards', () => {
  it('resolves 50 sessions with group, creator, project, usage and messages in as many statements as 10', async () => {
    const ten = await countStatements(() => gql(api, DASHBOARD, { o: user.orgKey, w: wsKey, limit: 10 }, user.token));
    expect(ten.result.body.errors).toBeUndefined();
    expect(ten.result.body.data.sessions.sessions).toHaveLength(10);
    const fifty = await countStatements(() => gql(api, DASHBOARD, { o: user.orgKey, w: wsKey, limit: 50 }, user.token));
    expect(fifty.result.body.errors).toBeUndefined();
    const sessions = fifty.result.body.data.sessions.sessions;
    expect(sessions).toHaveLength(50);
    expect(sessions.every((session: { group: unknown; project: unknown; creator: unknown }) => session.group && session.project && session.creator)).toBe(true);
    expect(sessions[0].project.key).toBe(sessions[0].project_key);
    expect(sessions[0].group.session_count).toBe(10);
    expect(fifty.statements.length).toBe(ten.statements.length);
    // auth + tenant lookups, count + page, and one per loader: far below one per session.
    expect(fifty.statements.length).toBeLessThan(20);
  });

  it('navigates workspace → sessions for every workspace of the org in one batch', async () => {
    const query = `query($o: String!) { workspaces(org: $o) { workspaces { key sessions(limit: 3) { id group { kind } created_by { username } } } } }`;
    const { result, statements } = await countStatements(() => gql(api, query, { o: user.orgKey }, user.token));
    expect(result.body.errors).toBeUndefined();
    const byKey = Object.fromEntries(
      result.body.data.workspaces.workspaces.map((ws: { key: string; sessions: unknown[] }) => [ws.key, ws.sessions]),
    );
    expect(byKey[wsKey]).toHaveLength(3);
    expect(byKey.default).toEqual([]);
    expect(statements.filter((sql) => sql.includes('FROM unnest'))).toHaveLength(1);
  });

  it('navigates group → sessions → group without one statement per group', async () => {
    const query = `query($o: String!, $w: String!) { session_groups(org: $o, workspace: $w) { groups { id session_count sessions(limit: 100) { id group { id } } } } }`;
    const { result, statements } = await countStatements(() => gql(api, query, { o: user.orgKey, w: wsKey }, user.token));
    expect(result.body.errors).toBeUndefined();
    const groups = result.body.data.session_groups.groups;
    expect(groups).toHaveLength(5);
    for (const group of groups) {
      expect(group.sessions).toHaveLength(10);
      expect(group.sessions.every((session: { group: { id: string } }) => session.group.id === group.id)).toBe(true);
    }
    expect(statements.length).toBeLessThan(15);
  });

  it("hides another user's private sessions from workspace navigation", async () => {
    const other = await createUser();
    const query = `query($o: String!) { workspaces(org: $o) { workspaces { key sessions { id } } } }`;
    const res = await gql(api, query, { o: other.orgKey }, other.token);
    expect(res.body.data.workspaces.workspaces.every((ws: { sessions: unknown[] }) => ws.sessions.length === 0)).toBe(true);
  });
});

describe('indexes for the list and facets', () => {
  it('has a partial index on active sessions per workspace and trigram indexes for search', async () => {
    const rows = await database().query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'sessions'",
      { type: QueryTypes.SELECT },
    );
    const byName = Object.fromEntries(rows.map((row) => [row.indexname, row.indexdef]));
    expect(byName.sessions_active_workspace_idx).toMatch(/\(workspace_id, updated_at DESC, id DESC\).*WHERE \(archived_at IS NULL\)/);
    expect(byName.sessions_title_trgm_idx).toMatch(/USING gin \(title gin_trgm_ops\)/);
    expect(byName.sessions_preview_trgm_idx).toMatch(/USING gin \(preview_text gin_trgm_ops\)/);
  });
});

import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createUser, type TestUser } from '../../factories/accounts';
import { inviteAndAccept } from '../../factories/invitations';
import { appendMessages, createGroup, createProject, createWorkspace, defaultProject, saveSession } from '../../factories/sessions';
import { database } from '../../../src/db/database';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;
let wsKey: string;

/** Runs a GraphQL request and counts the SQL statements it caused. */
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
    const dashboard = (limit: number) => runOperation(api, 'SessionDashboard', { org: user.orgKey, workspace: wsKey, limit }, user.token);
    const ten = await countStatements(() => dashboard(10));
    expect(ten.result.body.errors).toBeUndefined();
    expect(ten.result.body.data.sessions.sessions).toHaveLength(10);
    const fifty = await countStatements(() => dashboard(50));
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
    const { result, statements } = await countStatements(() => runOperation(api, 'WorkspaceSessions', { org: user.orgKey, limit: 3 }, user.token));
    expect(result.body.errors).toBeUndefined();
    const byKey = Object.fromEntries(
      result.body.data.workspaces.workspaces.map((ws: { key: string; sessions: unknown[] }) => [ws.key, ws.sessions]),
    );
    expect(byKey[wsKey]).toHaveLength(3);
    expect(byKey.default).toEqual([]);
    expect(statements.filter((sql) => sql.includes('FROM unnest') && sql.includes('workspace_id = k.id'))).toHaveLength(1);
  });

  it('navigates group → sessions → group without one statement per group', async () => {
    const { result, statements } = await countStatements(() =>
      runOperation(api, 'SessionGroupNavigation', { org: user.orgKey, workspace: wsKey, limit: 10 }, user.token),
    );
    expect(result.body.errors).toBeUndefined();
    const groups = result.body.data.session_groups.groups;
    expect(groups).toHaveLength(5);
    for (const group of groups) {
      expect(group.sessions).toHaveLength(10);
      expect(group.sessions.every((session: { group: { id: string } }) => session.group.id === group.id)).toBe(true);
    }
    expect(statements.length).toBeLessThan(15);
  });
});

/**
 * Visibility through every GraphQL-only navigation field that reaches
 * sessions: two members of one workspace, each with private and shared
 * sessions, plus a member of another organization. A field that forgets the
 * visibility or tenant condition shows up here as a hidden id or message.
 */
describe('visibility through navigation fields', () => {
  type Member = 'alice' | 'bob';
  interface Fixture {
    name: string;
    owner: Member;
    visibility: 'private' | 'workspace';
    group: 'shared' | 'bobOnly';
    id: string;
    /** The only message of the session: found in a reply means the session leaked. */
    secret: string;
  }

  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let org: string;
  const WS = 'default';
  const groups: Record<Fixture['group'], string> = { shared: '', bobOnly: '' };
  const fixtures: Fixture[] = [
    { name: 'alice private', owner: 'alice', visibility: 'private', group: 'shared', id: '', secret: '' },
    { name: 'alice shared', owner: 'alice', visibility: 'workspace', group: 'shared', id: '', secret: '' },
    { name: 'bob private', owner: 'bob', visibility: 'private', group: 'shared', id: '', secret: '' },
    { name: 'bob shared', owner: 'bob', visibility: 'workspace', group: 'shared', id: '', secret: '' },
    { name: 'bob private, alone in his group', owner: 'bob', visibility: 'private', group: 'bobOnly', id: '', secret: '' },
  ];
  const users = (): Record<Member, TestUser> => ({ alice, bob });
  const visibleTo = (member: Member) => fixtures.filter((fixture) => fixture.owner === member || fixture.visibility === 'workspace');
  const hiddenFrom = (member: Member) => fixtures.filter((fixture) => !visibleTo(member).includes(fixture));
  const ids = (list: { id: string }[]) => list.map((item) => item.id).sort();

  /** Names of the fixtures whose id or message appears anywhere in a reply. */
  function leaked(body: unknown, candidates: Fixture[]): string[] {
    const text = JSON.stringify(body);
    return candidates.filter((fixture) => text.includes(fixture.id) || text.includes(fixture.secret)).map((fixture) => fixture.name);
  }

  /** Each session's messages must be its own: the secret of the session with that id. */
  function expectOwnMessages(sessions: { id: string; messages: { content: unknown }[] }[]): void {
    for (const session of sessions) {
      const fixture = fixtures.find((item) => item.id === session.id);
      expect(session.messages.map((message) => message.content)).toEqual(fixture ? [fixture.secret] : []);
    }
  }

  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([createUser(), createUser(), createUser()]);
    org = alice.orgKey;
    await inviteAndAccept(api, alice, org, bob, 'contributor');
    const projectId = (await defaultProject(org, WS)).id;
    groups.shared = (await createGroup(api, alice, { kind: 'workflow', title: 'Shared run' }, { orgKey: org })).id;
    groups.bobOnly = (await createGroup(api, bob, { kind: 'worker_run', title: "Bob's run" }, { orgKey: org })).id;
    for (const fixture of fixtures) {
      const owner = users()[fixture.owner];
      fixture.secret = `secret of ${fixture.name} ${crypto.randomUUID()}`;
      const saved = await saveSession(
        api,
        owner,
        { visibility: fixture.visibility, group_id: groups[fixture.group], project_id: projectId, title: fixture.name },
        { orgKey: org, ws: WS },
      );
      fixture.id = saved.id;
      await appendMessages(api, owner, fixture.id, [{ role: 'user', content: fixture.secret }], { orgKey: org, ws: WS });
    }
  });

  it.each(['alice', 'bob'] as const)(
    "shows %s their own private and everyone's shared sessions in workspace.sessions, never another member's private ones",
    async (member) => {
      const res = await runOperation(api, 'WorkspaceSessions', { org, limit: 10 }, users()[member].token);
      expect(res.body.errors).toBeUndefined();
      const workspace = res.body.data.workspaces.workspaces.find((ws: { key: string }) => ws.key === WS);
      expect(ids(workspace.sessions)).toEqual(ids(visibleTo(member)));
      expectOwnMessages(workspace.sessions);
      expect(leaked(res.body, hiddenFrom(member))).toEqual([]);
    },
  );

  it.each(['alice', 'bob'] as const)(
    "shows %s only visible sessions in session_group.sessions, in the list of groups and in one group",
    async (member) => {
      const token = users()[member].token;
      const inGroup = (group: Fixture['group']) => ids(visibleTo(member).filter((fixture) => fixture.group === group));

      const list = await runOperation(api, 'SessionGroupNavigation', { org, workspace: WS }, token);
      expect(list.body.errors).toBeUndefined();
      const byId = Object.fromEntries(list.body.data.session_groups.groups.map((group: { id: string }) => [group.id, group]));
      expect(ids(byId[groups.shared].sessions)).toEqual(inGroup('shared'));
      expect(ids(byId[groups.bobOnly].sessions)).toEqual(inGroup('bobOnly'));
      expectOwnMessages([...byId[groups.shared].sessions, ...byId[groups.bobOnly].sessions]);
      expect(leaked(list.body, hiddenFrom(member))).toEqual([]);

      for (const group of ['shared', 'bobOnly'] as const) {
        const one = await runOperation(api, 'SessionGroup', { org, workspace: WS, group_id: groups[group] }, token);
        expect(one.body.errors).toBeUndefined();
        expect(ids(one.body.data.session_group.sessions)).toEqual(inGroup(group));
        expect(leaked(one.body, hiddenFrom(member))).toEqual([]);
      }
    },
  );

  it.each(['alice', 'bob'] as const)(
    "keeps another member's private sessions out of %s's dashboard: session → group → sessions, project, creator and messages",
    async (member) => {
      const res = await runOperation(api, 'SessionDashboard', { org, workspace: WS, limit: 20 }, users()[member].token);
      expect(res.body.errors).toBeUndefined();
      const sessions = res.body.data.sessions.sessions;
      expect(ids(sessions)).toEqual(ids(visibleTo(member)));
      for (const session of sessions) {
        const fixture = fixtures.find((item) => item.id === session.id)!;
        expect(session.creator.username).toBe(users()[fixture.owner].username);
        expect(session.project).toMatchObject({ id: session.project_id, key: 'default' });
        expect(session.messages.map((message: { content: unknown }) => message.content)).toEqual([fixture.secret]);
        expect(session.group.id).toBe(groups[fixture.group]);
        expect(ids(session.group.sessions)).toEqual(ids(visibleTo(member).filter((item) => item.group === fixture.group)));
        expectOwnMessages(session.group.sessions);
      }
      expect(leaked(res.body, hiddenFrom(member))).toEqual([]);
    },
  );

  it("answers a member's direct look-up of another member's private session with not_found_error", async () => {
    const hidden = fixtures.find((fixture) => fixture.name === 'bob private')!;
    for (const name of ['Session', 'SessionTranscript']) {
      const res = await runOperation(api, name, { org, workspace: WS, session_id: hidden.id }, alice.token);
      expect(res.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error', status: 404 });
      expect(leaked(res.body, [hidden])).toEqual([]);
    }
    // The owner reaches it, so the 404 above is about visibility.
    const own = await runOperation(api, 'Session', { org, workspace: WS, session_id: hidden.id }, bob.token);
    expect(own.body.data.session.id).toBe(hidden.id);
  });

  it("gives a member of another organization nothing of this organization's sessions and groups", async () => {
    const attempts: [string, Record<string, unknown>][] = [
      ['WorkspaceSessions', { org, limit: 10 }],
      ['SessionDashboard', { org, workspace: WS, limit: 20 }],
      ['SessionGroupNavigation', { org, workspace: WS }],
      ['SessionGroup', { org, workspace: WS, group_id: groups.shared }],
      ['Session', { org, workspace: WS, session_id: fixtures[1].id }],
      ['SessionTranscript', { org, workspace: WS, session_id: fixtures[1].id }],
    ];
    for (const [name, variables] of attempts) {
      const res = await runOperation(api, name, variables, carol.token);
      expect({ name, extensions: res.body.errors?.[0].extensions }).toMatchObject({ name, extensions: { type: 'not_found_error', status: 404 } });
      // A lookup that finds nothing is null (it is nullable), a non-null root nulls the whole data: nothing either way.
      expect({ name, values: Object.values(res.body.data ?? {}).filter((value) => value !== null) }).toEqual({ name, values: [] });
      expect({ name, leaked: leaked(res.body, fixtures) }).toEqual({ name, leaked: [] });
    }
    // Carol's own organization is navigable and holds nothing of ours.
    const own = await runOperation(api, 'WorkspaceSessions', { org: carol.orgKey, limit: 10 }, carol.token);
    expect(own.body.errors).toBeUndefined();
    expect(leaked(own.body, fixtures)).toEqual([]);
  });

  describe('rows that point into another organization', () => {
    // Rows that reference across organizations, as a write bug or a bad import could leave them:
    // the navigation loaders must still answer only within the caller's tenant.
    const marker = crypto.randomUUID();
    const stray = { id: crypto.randomUUID(), project: crypto.randomUUID(), secret: `stray ${marker}` };
    let carolSession: { id: string };
    let carolGroup: { id: string };
    let foreign: string[];
    const foreignIn = (body: unknown) => foreign.filter((value) => JSON.stringify(body).includes(value));

    beforeAll(async () => {
      const one = async <T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T> => {
        const [row] = await database().query<T>(sql, { replacements, type: QueryTypes.SELECT });
        if (!row) throw new Error(`no row for ${JSON.stringify(replacements)}`);
        return row;
      };
      const ours = await one<{ org_id: string; project_id: string }>(
        `SELECT o.id AS org_id, p.id AS project_id FROM organizations o
           JOIN workspaces w ON w.organization_id = o.id AND w.key = :ws
           JOIN projects p ON p.workspace_id = w.id AND p.is_default
          WHERE o.key = :org`,
        { org, ws: WS },
      );
      const theirs = await one<{ workspace_id: string }>(
        "SELECT w.id AS workspace_id FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.key = :org AND w.key = 'default'",
        { org: carol.orgKey },
      );
      carolSession = await saveSession(api, carol, { title: `carol ${marker}`, visibility: 'workspace' });
      carolGroup = await createGroup(api, carol, { kind: 'workflow' });
      // Carol's session points at our group and project; a session, a project and a message of
      // our organization are filed under Carol's workspace, group and session.
      await database().query(
        `UPDATE sessions SET group_id = :our_group, project_id = :our_project WHERE id = :carol_session;
         INSERT INTO projects (id, organization_id, workspace_id, key, name) VALUES (:project, :org, :ws, :key, 'Stray project');
         INSERT INTO sessions (id, organization_id, workspace_id, user_id, group_id, model, visibility, origin, title)
         VALUES (:session, :org, :ws, :user, :carol_group, 'model-a', 'workspace', 'user', 'Stray session');
         INSERT INTO session_messages (session_id, seq, organization_id, id, role, content)
         VALUES (:carol_session, 99, :org, :message, 'user', to_jsonb(CAST(:secret AS text)))`,
        {
          replacements: {
            our_group: groups.shared,
            our_project: ours.project_id,
            project: stray.project,
            org: ours.org_id,
            ws: theirs.workspace_id,
            key: `stray-${marker.slice(0, 8)}`,
            session: stray.id,
            user: alice.id,
            carol_group: carolGroup.id,
            carol_session: carolSession.id,
            message: `stray-${marker}`,
            secret: stray.secret,
          },
        },
      );
      foreign = [...fixtures.map((fixture) => fixture.id), groups.shared, groups.bobOnly, ours.project_id, stray.id, stray.project, stray.secret];
    });

    it('resolves no group, project, message or usage of another organization from a session', async () => {
      const res = await runOperation(api, 'SessionDashboard', { org: carol.orgKey, workspace: 'default', search: marker }, carol.token);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.sessions.sessions).toHaveLength(1);
      const [session] = res.body.data.sessions.sessions;
      expect(session).toMatchObject({ id: carolSession.id, group: null, project: null, project_key: null, project_name: null, messages: [] });
      expect(session.usage.total_message_count).toBe(0);
      // The row's own group_id and project_id columns hold the foreign ids; nothing may be resolved from them.
      expect(foreignIn({ ...session, group_id: null, project_id: null })).toEqual([]);
    });

    it("lists no session or project of another organization under the caller's workspace", async () => {
      const sessions = await runOperation(api, 'WorkspaceSessions', { org: carol.orgKey, limit: 10 }, carol.token);
      expect(sessions.body.errors).toBeUndefined();
      expect(ids(sessions.body.data.workspaces.workspaces[0].sessions)).toEqual([carolSession.id]);
      expect(foreignIn(sessions.body)).toEqual([]);
      const workspace = await runOperation(api, 'Workspace', { org: carol.orgKey, workspace: 'default' }, carol.token);
      expect(workspace.body.errors).toBeUndefined();
      expect(workspace.body.data.workspace.projects.map((project: { key: string }) => project.key)).toEqual(['default']);
      expect(foreignIn(workspace.body)).toEqual([]);
    });

    it("lists no session of another organization under the caller's group", async () => {
      const res = await runOperation(api, 'SessionGroupNavigation', { org: carol.orgKey, workspace: 'default' }, carol.token);
      expect(res.body.errors).toBeUndefined();
      const group = res.body.data.session_groups.groups.find((item: { id: string }) => item.id === carolGroup.id);
      expect(group.sessions).toEqual([]);
      expect(foreignIn(res.body)).toEqual([]);
    });
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

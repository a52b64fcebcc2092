import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createGroup, saveSession, sessionsPath } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

/**
 * Session visibility is one rule (src/modules/sessions/session.policy.ts).
 * Here that rule is replaced by TRUE, so another member's private session
 * must show in every read path: a path that still hides it does not go
 * through the policy (and a change to the rule would miss it). The rule
 * itself (hidden when private, shown when shared) is tested with each path
 * in the sessions, session-groups and assessments tests.
 */
jest.mock('../../../src/modules/sessions/session.policy', () => {
  const actual = jest.requireActual('../../../src/modules/sessions/session.policy');
  // The viewer's parameter stays referenced, so statements keep their parameter list.
  return { ...actual, isVisible: () => true, visibleSql: (_alias: string, viewer = '$tenant_user') => `(${viewer}::uuid IS NOT NULL OR TRUE)`, visibleWhere: () => ({}) };
});

const api = useTestApp();
let owner: TestUser;
let other: TestUser;
let orgKey: string;
let privateId: string;
let groupId: string;

beforeAll(async () => {
  const org = await createOrgWithRoles();
  ({ owner, orgKey } = org);
  other = org.contributor;
  groupId = (await createGroup(api, owner, {}, { orgKey })).id;
  privateId = (await saveSession(api, owner, { visibility: 'private', group_id: groupId, agent: 'policy-agent', title: 'policy title' }, { orgKey })).id;
});

const WS = () => sessionsPath(orgKey);

describe('every session read path goes through the visibility policy', () => {
  it('REST single read by id and by prefix', async () => {
    expect((await rest(api, 'GET', `${WS()}/${privateId}`, { token: other.token })).status).toBe(200);
    expect((await rest(api, 'GET', `${WS()}/${privateId.slice(0, 13)}`, { token: other.token })).status).toBe(200);
  });

  it('REST list', async () => {
    const res = await rest(api, 'GET', WS(), { token: other.token, query: { limit: '100' } });
    expect(res.body.sessions.map((session: { id: string }) => session.id)).toContain(privateId);
  });

  it('GraphQL single read and dashboard list (answered by one compiled statement)', async () => {
    const one = await runOperation(api, 'Session', { org: orgKey, workspace: 'default', session_id: privateId }, other.token);
    expect(one.body.data.session?.id).toBe(privateId);
    const list = await runOperation(api, 'SessionDashboard', { org: orgKey, workspace: 'default', limit: 100 }, other.token);
    expect(list.body.data.sessions.sessions.map((session: { id: string }) => session.id)).toContain(privateId);
  });

  it("a group's sessions, through DataLoader and the compiled statement alike", async () => {
    const group = await runOperation(api, 'SessionGroup', { org: orgKey, workspace: 'default', group_id: groupId }, other.token);
    expect(group.body.data.session_group.sessions.map((session: { id: string }) => session.id)).toContain(privateId);
    const navigation = await runOperation(api, 'SessionGroupNavigation', { org: orgKey, workspace: 'default', limit: 10 }, other.token);
    const listed = navigation.body.data.session_groups.groups.find((item: { id: string }) => item.id === groupId);
    expect(listed.sessions.map((session: { id: string }) => session.id)).toContain(privateId);
  });

  it('facets filtered by a search', async () => {
    const res = await runOperation(api, 'SessionFacets', { org: orgKey, workspace: 'default', search: 'policy' }, other.token);
    expect(res.body.data.session_facets.agents).toContainEqual({ value: 'policy-agent', count: 1 });
  });

  it("an assessment linked to the session (the link check and the assessment's session field)", async () => {
    const created = await rest(api, 'POST', `/org/${orgKey}/ws/default/airt/assessments`, { token: other.token, body: { name: 'policy', session_id: privateId } });
    expect(created.status).toBe(201);
  });
});

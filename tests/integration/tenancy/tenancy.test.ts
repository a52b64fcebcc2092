import crypto from 'node:crypto';
import { restOperations } from '../../../src/rest';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createProjectRow } from '../../factories/projects';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Tenancy matrix: one row per organization-scoped endpoint. For every row a
 * member of another organization gets 404 (for the first organization's paths,
 * and for its ids under their own organization), and for every write a reader
 * gets 403 while the owner succeeds with the same request.
 *
 * To cover a new endpoint, add one row: the route exactly as in its @Rest
 * decorator, a path builder and (for writes) a valid body builder. The first
 * test fails until every `/org/:org...` route of the schema has a row.
 */
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Target {
  org: string;
  ws: string;
  /** A non-default, empty project of `ws`. */
  projectKey: string;
  /** The id of the default project of `ws`. */
  defaultProjectId: string;
  /** A member other than the reader (the contributor). */
  memberId: string;
  /** A user who is not a member yet. */
  memberEmail: string;
  /** A session with workspace visibility, and a session group, in `ws`. */
  sessionId: string;
  groupId: string;
  unique: () => string;
}

interface EndpointRow {
  method: Method;
  route: string;
  path: (t: Target) => string;
  body?: (t: Target) => unknown;
}

const ROWS: EndpointRow[] = [
  // organizations
  { method: 'GET', route: '/org/:org', path: (t) => `/org/${t.org}` },
  // workspaces
  { method: 'GET', route: '/org/:org/ws', path: (t) => `/org/${t.org}/ws` },
  { method: 'GET', route: '/org/:org/ws/:workspace', path: (t) => `/org/${t.org}/ws/${t.ws}` },
  { method: 'POST', route: '/org/:org/ws', path: (t) => `/org/${t.org}/ws`, body: (t) => ({ key: t.unique(), name: 'Tenancy' }) },
  { method: 'PUT', route: '/org/:org/ws/:workspace', path: (t) => `/org/${t.org}/ws/${t.ws}`, body: () => ({ name: 'Renamed' }) },
  // projects
  { method: 'GET', route: '/org/:org/ws/:workspace/projects', path: (t) => `/org/${t.org}/ws/${t.ws}/projects` },
  { method: 'GET', route: '/org/:org/ws/:workspace/projects/:project_key', path: (t) => `/org/${t.org}/ws/${t.ws}/projects/${t.projectKey}` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/projects',
    path: (t) => `/org/${t.org}/ws/${t.ws}/projects`,
    body: (t) => ({ key: t.unique(), name: 'Tenancy project' }),
  },
  { method: 'DELETE', route: '/org/:org/ws/:workspace/projects/:project_key', path: (t) => `/org/${t.org}/ws/${t.ws}/projects/${t.projectKey}` },
  // members
  { method: 'GET', route: '/org/:org/members', path: (t) => `/org/${t.org}/members` },
  { method: 'POST', route: '/org/:org/members', path: (t) => `/org/${t.org}/members`, body: (t) => ({ email: t.memberEmail, role: 'reader' }) },
  { method: 'PATCH', route: '/org/:org/members/:user_id', path: (t) => `/org/${t.org}/members/${t.memberId}`, body: () => ({ role: 'reader' }) },
  { method: 'DELETE', route: '/org/:org/members/:user_id', path: (t) => `/org/${t.org}/members/${t.memberId}` },
  // chat integration
  { method: 'GET', route: '/org/:org/integrations/chat', path: (t) => `/org/${t.org}/integrations/chat` },
  { method: 'PUT', route: '/org/:org/integrations/chat/settings', path: (t) => `/org/${t.org}/integrations/chat/settings`, body: () => ({ thread_detail: 'final' }) },
  // session groups
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/groups', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups` },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/groups/:group_id', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups/${t.groupId}` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/groups',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups`,
    body: (t) => ({ kind: 'workflow', project_id: t.defaultProjectId, title: 'Tenancy group' }),
  },
  {
    method: 'PATCH',
    route: '/org/:org/ws/:workspace/sessions/groups/:group_id',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups/${t.groupId}`,
    body: () => ({ title: 'Renamed group' }),
  },
  // sessions (the order matters for the owner's run: freeze and delete come last)
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions` },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/facets', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/facets` },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/:session_id', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}` },
  {
    method: 'GET',
    route: '/org/:org/ws/:workspace/sessions/:session_id/transcript',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/transcript`,
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions`,
    body: () => ({ id: crypto.randomUUID(), model: 'test-model', visibility: 'workspace' }),
  },
  {
    method: 'PATCH',
    route: '/org/:org/ws/:workspace/sessions/:session_id',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}`,
    body: () => ({ title: 'Renamed session' }),
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/transcript',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/transcript`,
    body: () => ({ messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }] }),
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/transcript/compact',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/transcript/compact`,
    body: () => ({ up_to_seq: 1, summary: { role: 'assistant', content: 'summary' } }),
  },
  { method: 'POST', route: '/org/:org/ws/:workspace/sessions/:session_id/archive', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/archive` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/unarchive',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/unarchive`,
  },
  { method: 'POST', route: '/org/:org/ws/:workspace/sessions/:session_id/freeze', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/freeze` },
  { method: 'DELETE', route: '/org/:org/ws/:workspace/sessions/:session_id', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}` },
];

const WRITES = ROWS.filter((row) => row.method !== 'GET');
/** Rows whose path names a resource below the organization (workspace, project, member, session, group). */
const ID_ROWS = ROWS.filter((row) => /:(workspace|project_key|user_id|session_id|group_id)\b/.test(row.route));
/** Rows that name a resource below the workspace: tried in the outsider's own, existing workspace. */
const DEEP_ID = /:(project_key|user_id|session_id|group_id)\b/;
const label = (row: EndpointRow) => `${row.method} ${row.route}`;

const api = useTestApp();

let owner: TestUser;
let reader: TestUser;
let outsider: TestUser;
let first: Target;

let sequence = 0;
const unique = () => `tenancy-${(sequence += 1)}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  const org = await createOrgWithRoles();
  ({ owner, reader, outsider } = org);
  const wsKey = unique();
  const created = await rest(api, 'POST', `/org/${org.orgKey}/ws`, { token: owner.token, body: { key: wsKey, name: 'Tenancy' } });
  expect(created.status).toBe(201);
  const project = await createProjectRow(org.orgKey, wsKey);
  const candidate = await createUser();
  const WS = `/org/${org.orgKey}/ws/${wsKey}`;
  const defaultProject = await rest(api, 'GET', `${WS}/projects/default`, { token: owner.token });
  expect(defaultProject.status).toBe(200);
  const session = await rest(api, 'POST', `${WS}/sessions`, {
    token: owner.token,
    body: { id: crypto.randomUUID(), model: 'test-model', visibility: 'workspace' },
  });
  expect(session.status).toBe(201);
  const group = await rest(api, 'POST', `${WS}/sessions/groups`, {
    token: owner.token,
    body: { kind: 'worker_run', project_id: defaultProject.body.id },
  });
  expect(group.status).toBe(201);
  first = {
    org: org.orgKey,
    ws: wsKey,
    projectKey: project.key,
    defaultProjectId: defaultProject.body.id,
    memberId: org.contributor.id,
    memberEmail: candidate.email,
    sessionId: session.body.id,
    groupId: group.body.id,
    unique,
  };
});

/**
 * The first organization's ids under the outsider's own organization: in the
 * outsider's existing default workspace for resources below a workspace, else
 * with the first organization's workspace key.
 */
function foreignIds(row: EndpointRow): Target {
  return { ...first, org: outsider.orgKey, ws: DEEP_ID.test(row.route) ? 'default' : first.ws };
}

function send(row: EndpointRow, target: Target, user: TestUser) {
  return rest(api, row.method, row.path(target), { token: user.token, body: row.body?.(target) });
}

describe('tenancy matrix', () => {
  it('has a row for every organization-scoped route of the schema', () => {
    const routes = restOperations(api.app.schema)
      .filter((operation) => operation.route.path.startsWith('/org/:org'))
      .map((operation) => `${operation.route.method} ${operation.route.path}`)
      .sort();
    expect(ROWS.map(label).sort()).toEqual(routes);
  });

  it.each(ROWS.map((row) => [label(row), row] as const))(
    "hides %s of one organization from another organization's member with 404",
    async (_label, row) => {
      const res = await send(row, first, outsider);
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('not_found_error');
    },
  );

  it.each(ID_ROWS.map((row) => [label(row), row] as const))(
    "answers %s with 404 when another organization's ids are used under the caller's own organization",
    async (_label, row) => {
      const res = await send(row, foreignIds(row), outsider);
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('not_found_error');
    },
  );

  it.each(WRITES.map((row) => [label(row), row] as const))('rejects a reader\'s %s with 403', async (_label, row) => {
    const res = await send(row, first, reader);
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it('lets the owner through every write of the matrix, so the refusals above are about tenancy and role', async () => {
    // Runs last, in table order: the writes change the fixture (member removed, project and session deleted).
    // A state conflict (409) is fine here; a 401, 403, 404 or 422 would mean the row tests nothing.
    const failures: string[] = [];
    for (const row of WRITES) {
      const res = await send(row, first, owner);
      if ([401, 403, 404, 422].includes(res.status) || res.status >= 500) failures.push(`${label(row)} -> ${res.status} ${res.body?.type}`);
    }
    expect(failures).toEqual([]);
  });
});

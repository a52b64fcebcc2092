import crypto from 'node:crypto';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createProjectRow } from '../../factories/projects';
import { rest } from '../../helpers/http';
import { tenancyRowFiles, type EndpointRow, type Target } from '../../helpers/tenancy';
import { useTestApp } from '../../helpers/test-app';

/**
 * Tenancy matrix: one row per organization-scoped endpoint. For every row a
 * member of another organization gets 404 (for the first organization's paths,
 * and for its ids under their own organization), and for every write a reader
 * gets 403 while the owner succeeds with the same request (a read sent as a
 * POST, marked `readerMay`, lets the reader through instead).
 *
 * The rows live with their domain: tests/integration/<domain>/*.tenancy.ts
 * exports `rows` (see tests/helpers/tenancy.ts). To cover a new endpoint, add
 * a row there; a new domain adds one such file in its own test folder. The
 * first test fails until every `/org/:org...` route the server serves has a row.
 */
const ROW_FILES = tenancyRowFiles();
const ROWS: EndpointRow[] = ROW_FILES.flatMap(({ rows }) => rows);

const WRITES = ROWS.filter((row) => row.method !== 'GET' && !row.readerMay);
/** Non-GET rows a reader may send (reads sent as POST). */
const READER_POSTS = ROWS.filter((row) => row.method !== 'GET' && row.readerMay);
/** The route's path parameters below `:org`, read from the route itself (no list of names to keep). */
const idParams = (row: EndpointRow) => [...row.route.matchAll(/:(\w+)/g)].map((match) => match[1]).filter((name) => name !== 'org');
/** Rows whose path names a resource below the organization (a workspace, or anything else by id, key or name). */
const ID_ROWS = ROWS.filter((row) => idParams(row).length > 0);
/** Rows that name a resource below the workspace (or beside it): tried in the outsider's own, existing workspace. */
const isDeep = (row: EndpointRow) => idParams(row).some((name) => name !== 'workspace');
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
  const assessment = await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Tenancy assessment' } });
  expect(assessment.status).toBe(201);
  const run = await rest(api, 'POST', `${WS}/workflows/runs`, {
    token: owner.token,
    query: { project_id: defaultProject.body.id },
    body: { definition_id: crypto.randomUUID(), title: 'Tenancy run' },
  });
  expect(run.status).toBe(201);
  first = {
    org: org.orgKey,
    ws: wsKey,
    projectKey: project.key,
    defaultProjectId: defaultProject.body.id,
    memberId: org.contributor.id,
    memberEmail: candidate.email,
    sessionId: session.body.id,
    groupId: group.body.id,
    assessmentId: assessment.body.id,
    runId: run.body.id,
    unique,
  };
  const sendAsOwner = (method: string, path: string, body: unknown) => rest(api, method, path, { token: owner.token, body });
  for (const { setup } of ROW_FILES) await setup?.(first, sendAsOwner);
});

/**
 * The first organization's ids under the outsider's own organization: in the
 * outsider's existing default workspace for resources below a workspace, else
 * with the first organization's workspace key.
 */
function foreignIds(row: EndpointRow): Target {
  return { ...first, org: outsider.orgKey, ws: isDeep(row) ? 'default' : first.ws };
}

function send(row: EndpointRow, target: Target, user: TestUser) {
  return rest(api, row.method, row.path(target), { token: user.token, body: row.body?.(target) });
}

describe('tenancy matrix', () => {
  it('has a row for every organization-scoped route the server serves', async () => {
    // The served OpenAPI document lists every REST route generated from the schema.
    const res = await rest(api, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const routes = Object.entries<Record<string, unknown>>(res.body.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, '').replace(/\{(\w+)\}/g, ':$1')}`))
      .filter((route) => route.split(' ')[1].startsWith('/org/:org'))
      .sort();
    expect(routes.length).toBeGreaterThan(0);
    expect(ROWS.map(label).sort()).toEqual(routes);
  });

  it('keeps each route in exactly one domain file', () => {
    const seen = new Map<string, string>();
    const duplicates: string[] = [];
    for (const { file, rows } of ROW_FILES) {
      for (const row of rows) {
        if (seen.has(label(row))) duplicates.push(`${label(row)} in ${seen.get(label(row))} and ${file}`);
        seen.set(label(row), file);
      }
    }
    expect(duplicates).toEqual([]);
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

  it.each(READER_POSTS.map((row) => [label(row), row] as const))('lets a reader through %s, a read sent as POST', async (_label, row) => {
    const res = await send(row, first, reader);
    expect([res.status, res.status < 300 ? null : res.body]).toEqual([200, null]);
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

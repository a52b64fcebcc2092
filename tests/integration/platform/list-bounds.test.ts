import 'reflect-metadata';
import { getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import { listBound, takesPage } from '../../../src/core/graphql-limits';
import { EMBEDDED_LIST_CAP, PAGE_DESCRIPTION } from '../../../src/core/pagination';
import { createUser, randomKey, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { createEvaluation, insertTasks } from '../../factories/evaluations';
import { createGroup, saveSession, sessionsPath } from '../../factories/sessions';
import { database } from '../../../src/db/database';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/** No reply embeds an unbounded list: bare-array lists page with page/limit, facets keep their top values. */
const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
  for (const key of ['ws-a', 'ws-b', 'ws-c']) {
    expect((await rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, body: { key, name: key } })).status).toBe(201);
  }
});

describe('bounded lists', () => {
  it('pages the workspaces of an organization with page and limit, in a stable order', async () => {
    const all = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token });
    expect(all.body.workspaces.map((ws: { key: string }) => ws.key)).toEqual(['default', 'ws-a', 'ws-b', 'ws-c']);
    const second = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, query: { page: 2, limit: 2 } });
    expect(second.status).toBe(200);
    expect(second.body.workspaces.map((ws: { key: string }) => ws.key)).toEqual(['ws-b', 'ws-c']);
    const past = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, query: { page: 3, limit: 2 } });
    expect(past.body.workspaces).toEqual([]);
  });

  it('refuses a page size over 100 or a page below 1 with 422 at the query parameter', async () => {
    const paths = [
      `/org/${user.orgKey}/ws`,
      `/org/${user.orgKey}/ws/default/projects`,
      `/org/${user.orgKey}/members`,
      `/org/${user.orgKey}/invitations`,
      '/user/api-keys',
      '/user/organizations',
      '/user/invitations',
    ];
    for (const path of paths) {
      const tooMany = await rest(api, 'GET', path, { token: user.token, query: { limit: 101 } });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'limit'] })]);
      const page = await rest(api, 'GET', path, { token: user.token, query: { page: 0 } });
      expect(page.status).toBe(422);
      expect(page.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'page'] })]);
    }
  });

  it('pages projects, members, API keys and organizations', async () => {
    await rest(api, 'POST', `/org/${user.orgKey}/ws/default/projects`, { token: user.token, body: { key: randomKey('p'), name: 'Second' } });
    const projects = await rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token, query: { limit: 1, page: 2 } });
    expect(projects.body).toHaveLength(1);
    expect(projects.body[0].key).not.toBe('default');
    await createApiKey(api, user, { name: 'one' });
    await createApiKey(api, user, { name: 'two' });
    const keys = await rest(api, 'GET', '/user/api-keys', { token: user.token, query: { limit: 1 } });
    expect(keys.body.map((key: { name: string }) => key.name)).toEqual(['two']);
    const members = await rest(api, 'GET', `/org/${user.orgKey}/members`, { token: user.token, query: { limit: 1, page: 2 } });
    expect(members.body).toEqual([]);
    const orgs = await rest(api, 'GET', '/user/organizations', { token: user.token, query: { limit: 1 } });
    expect(orgs.body.map((org: { key: string }) => org.key)).toEqual([user.orgKey]);
  });

  it('bounds workspace.projects in GraphQL by its limit', async () => {
    const res = await gql(api, '{ workspaces(org: "' + user.orgKey + '", limit: 1) { workspaces { key projects(limit: 1) { key } } } }', {}, user.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.workspaces.workspaces).toHaveLength(1);
    expect(res.body.data.workspaces.workspaces[0].projects).toHaveLength(1);
  });

  it('keeps the 100 most frequent values of a facet', async () => {
    const ws = 'ws-c';
    for (let index = 0; index < 101; index += 1) await saveSession(api, user, { agent: `agent-${String(index).padStart(3, '0')}` }, { ws });
    await saveSession(api, user, { agent: 'agent-100' }, { ws });
    const res = await rest(api, 'GET', `${sessionsPath(user.orgKey, ws)}/facets`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.agents).toHaveLength(100);
    expect(res.body.agents[0]).toEqual({ value: 'agent-100', count: 2 });
    expect(res.body.agents.map((entry: { value: string }) => entry.value)).not.toContain('agent-099');
  });

  it('refuses more than 1000 values of a repeatable filter with 422', async () => {
    const agents = Array.from({ length: 1001 }, (_, index) => `a${index}`);
    const res = await rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { agent: agents } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['query', 'agent'] })]);
  });

  it('refuses more than 1000 values of a repeatable enum filter with 422, valid values repeated included', async () => {
    const ws = `/org/${user.orgKey}/ws/default`;
    const cases: [string, string, string][] = [
      [`${sessionsPath(user.orgKey)}/groups`, 'kind', 'workflow'],
      [`${sessionsPath(user.orgKey)}/groups`, 'status', 'running'],
      [`${ws}/workflows/runs`, 'status', 'running'],
      [`${ws}/airt/projects/default/findings`, 'severity', 'high'],
    ];
    for (const [path, name, value] of cases) {
      const many = await rest(api, 'GET', path, { token: user.token, query: { [name]: Array.from({ length: 1001 }, () => value) } });
      expect(many.status).toBe(422);
      expect(many.body.errors).toEqual([expect.objectContaining({ loc: ['query', name], type: 'too_long' })]);
      const fine = await rest(api, 'GET', path, { token: user.token, query: { [name]: Array.from({ length: 1000 }, () => value) } });
      expect(fine.status).toBe(200);
    }
  });

  it('answers a page past the end, however deep (past 10,000 rows), empty with the true totals, for page envelopes and bare lists alike', async () => {
    const deep = await rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { page: 2_000_000, limit: 100 } });
    const total = (await rest(api, 'GET', sessionsPath(user.orgKey), { token: user.token, query: { limit: 1 } })).body.total;
    expect(deep.body).toMatchObject({ sessions: [], total, page: 2_000_000, limit: 100, has_next: false, has_previous: true });
    const graphql = await gql(api, `{ sessions(org: "${user.orgKey}", workspace: "default", page: 2000000, limit: 100) { total sessions { id } } }`, {}, user.token);
    expect(graphql.body.data.sessions).toEqual({ total, sessions: [] });
    const groups = await rest(api, 'GET', `${sessionsPath(user.orgKey)}/groups`, { token: user.token, query: { page: 502, limit: 20 } });
    expect([groups.status, groups.body.groups]).toEqual([200, []]);
    const workspaces = await rest(api, 'GET', `/org/${user.orgKey}/ws`, { token: user.token, query: { page: 102, limit: 100 } });
    expect([workspaces.status, workspaces.body.workspaces ?? workspaces.body]).toEqual([200, []]);
  });

  it('refuses a page that starts more than 10,000 rows deep while the list has rows there (422 at the page), and answers one past its end', async () => {
    const owner = await createUser();
    const path = `${sessionsPath(owner.orgKey)}/groups`;
    const project = (await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/projects`, { token: owner.token })).body[0];
    const group = await createGroup(api, owner, { kind: 'workflow', project_id: project.id });
    // 10,050 more rows like it, written directly.
    await database().query(
      `INSERT INTO session_groups
       SELECT (jsonb_populate_record(NULL::session_groups, to_jsonb(g) || jsonb_build_object('id', gen_random_uuid()))).*
         FROM session_groups g CROSS JOIN generate_series(1, 10050) WHERE g.id = $id`,
      { bind: { id: group.id } },
    );
    const deep = await rest(api, 'GET', path, { token: owner.token, query: { page: 503, limit: 20 } });
    expect([deep.status, deep.body.errors]).toEqual([422, [expect.objectContaining({ loc: ['query', 'page'], type: 'less_than_equal' })]]);
    const past = await rest(api, 'GET', path, { token: owner.token, query: { page: 600, limit: 20 } });
    expect(past.body).toMatchObject({ groups: [], total: 10_051, page: 600 });
    expect((await rest(api, 'GET', path, { token: owner.token, query: { page: 501, limit: 20 } })).body.groups).toHaveLength(20);
  });

  it('prices a list over archived sessions like a search: one per operation', async () => {
    const two = `{ a: sessions(org: "${user.orgKey}", workspace: "default", archived: any, limit: 1) { total } b: sessions(org: "${user.orgKey}", workspace: "default", archived: any, limit: 1) { total } }`;
    const res = await gql(api, two, {}, user.token);
    expect(res.status).toBe(422);
    expect(res.body.errors![0].extensions.errors[0].type).toBe('query_cost');
  });

  it('treats a NUL character in an organization key as an unknown organization or invalid input, never a 500', async () => {
    const rest404 = await rest(api, 'GET', '/org/%00/ws', { token: user.token });
    expect([404, 422]).toContain(rest404.status);
    const graphql = await gql(api, 'query($o: String!) { organization(org: $o) { id } }', { o: 'a\u0000b' }, user.token);
    expect(graphql.body.errors![0].extensions.status).not.toBe(500);
    // Written inline, the key meets the same string rules as a variable: invalid input, at the query.
    const inline = await gql(api, '{ organization(org: "a\\u0000b") { id } }', {}, user.token);
    expect(inline.body.errors![0].extensions).toMatchObject({ status: 422, type: 'validation_error', errors: [expect.objectContaining({ loc: ['body', 'query', 'org'], type: 'string_type' })] });
  });

  it('answers a NUL character in the organization key of a route that reads its own body (OTLP ingest, capability files) 404, with a key or a token', async () => {
    const key = await createApiKey(api, user);
    const base = `${api.baseUrl}/api/v1/org/%00`;
    const otlp = await fetch(`${base}/otel/traces`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: '{"resourceSpans": []}' });
    expect(otlp.status).toBe(404);
    expect(await otlp.json()).toMatchObject({ code: 404, type: 'not_found_error' });
    const file = await fetch(`${base}/capabilities/a/1.0.0/files/x`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(file.status).toBe(404);
    const workspace = await fetch(`${api.baseUrl}/api/v1/org/${user.orgKey}/ws/%00/traces`, { headers: { authorization: `Bearer ${user.token}` } });
    expect([404, 422]).toContain(workspace.status);
  });

  it("declares every list's page once (PageArg): its description says how deep pages reach, and no static maximum", () => {
    const pages: string[] = [];
    for (const type of Object.values(api.app.schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const page = field.args.find((arg) => arg.name === 'page');
        if (page && page.description !== PAGE_DESCRIPTION) pages.push(`${type.name}.${field.name}: ${page.description}`);
      }
    }
    // An evaluation's items page through all of its items (up to 30,000), past the depth of other lists.
    expect(pages).toEqual([expect.stringMatching(/^Query\.evaluation_items: .*pages reach every item/)]);
    const openApi = api.app.openApi() as { paths: Record<string, Record<string, { parameters?: { name: string; schema: { maximum?: number } }[] }>> };
    const maxima = Object.values(openApi.paths).flatMap((path) => Object.values(path).flatMap((operation) => (operation.parameters ?? []).filter((parameter) => parameter.name === 'page' && parameter.schema.maximum !== undefined)));
    expect(maxima).toEqual([]);
  });

  it("declares every list's page size with its default (PageSizeArg), in the schema and in the OpenAPI document", () => {
    const withoutDefault: string[] = [];
    for (const type of Object.values(api.app.schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) if ((arg.name === 'limit' || arg.name === 'page_size') && arg.defaultValue === undefined) withoutDefault.push(`${type.name}.${field.name}`);
      }
    }
    // A session read's `limit` asks for its events: left out, it asks for none.
    expect(withoutDefault).toEqual(['Query.session']);
    const openApi = api.app.openApi() as { paths: Record<string, Record<string, { parameters?: { name: string; schema: { default?: number } }[] }>> };
    const undocumented = Object.entries(openApi.paths).flatMap(([path, operations]) =>
      Object.values(operations).flatMap((operation) =>
        (operation.parameters ?? []).filter((parameter) => (parameter.name === 'limit' || parameter.name === 'page_size') && parameter.schema.default === undefined).map(() => path),
      ),
    );
    expect(undocumented).toEqual(['/api/v1/org/{org}/ws/{workspace}/sessions/{session_id}']);
  });

  it('gives every list field of the schema a limit argument or a declared bound', () => {
    const unbounded: string[] = [];
    for (const type of Object.values(api.app.schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (isListType(getNullableType(field.type)) && !takesPage(field) && listBound(field) === null) unbounded.push(`${type.name}.${field.name}`);
      }
    }
    // Each needs `limit`, @MaxItems(n) (the most its parent's row holds) or @PageItems() (a page envelope's list).
    expect(unbounded).toEqual([]);
  });

  it('gives every JSON field of the schema a declared size (@MaxBytes), or a bound of its own named here', () => {
    // What bounds each JSON field without @MaxBytes; a new one must be priced or added here with its reason.
    const boundElsewhere: Record<string, string> = {
      'AssessmentAnalyticsResponse.analytics_snapshot': 'totals and the top 100 categories of two dimensions (TOP_VALUES)',
      'AssessmentResponse.analytics_snapshot': 'the same snapshot',
      'AttackSpanResponse.best_modality_scores': "an attack's stored reply, read within the reply budget (attackBytes)",
      'CapabilityArtifactDetail.component_counts': 'a count per component type',
      'CapabilityArtifactSummary.component_counts': 'a count per component type',
      'CapabilityComponentDetail.metadata': "part of its capability's component_details, priced at the manifest's bound (@MaxBytes)",
      'ChatConnectionResponse.masked_credentials': 'one per organization, masked',
      'EvaluationJobResponse.dataset_ref': '{rows: n}',
      'EvaluationJobResponse.summary_json': 'written by no route (null)',
      'EvaluationSummaryResponse.mean_scores': 'a mean per score name of one evaluation',
      'GeneratedProjectReport.content_json': 'one per request, built from at most 1,000 assessments and 10 findings',
      'ProjectRedTeamSummary.assessments_by_status': 'a count per status',
      'Query.evaluation_item_trajectory': 'a transcript read within the reply budget',
      'Query.session_trajectory': 'a transcript read within the reply budget',
      'SessionFacetsResponse.labels': 'the top 100 label keys and values (TOP_VALUES), priced as a facet read',
      'SessionResponse.labels': 'at most 2,000 bytes (MAX_LABELS_BYTES)',
      'SpanResponse.attributes': "a span's stored size, read within the reply budget (spans.bytes)",
      'SpanResponse.events': "a span's stored size, read within the reply budget (spans.bytes)",
      'SpanResponse.resource': "a span's stored size, read within the reply budget (spans.bytes)",
      'TraceDetail.attributes': "a root span's stored size, read within the reply budget (spans.bytes)",
      'TraceStatsResponse.span_types': 'the top 100 span types (TOP_VALUES)',
      'TranscriptMessage.content': 'transcript messages are read within the reply budget',
      'TranscriptMessage.metadata': 'transcript messages are read within the reply budget',
      'TranscriptRewindResponse.restored_content': 'one message of a mutation (at most its 1 MiB body)',
      'TranscriptToolCall.arguments': 'transcript messages are read within the reply budget',
    };
    const unpriced: string[] = [];
    for (const type of Object.values(api.app.schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type).name;
        if ((named === 'JSON' || named === 'JSONObject') && field.extensions?.maxBytes === undefined) unpriced.push(`${type.name}.${field.name}`);
      }
    }
    expect(unpriced.sort()).toEqual(Object.keys(boundElsewhere).sort());
  });

  describe('large embedded lists: the first 100 in lists, a count beside, all of them in the single read', () => {
    const ws = () => `/org/${user.orgKey}/ws/default`;

    it("caps an evaluation's skipped members in the REST and GraphQL lists and in project navigation", async () => {
      const names = Array.from({ length: EMBEDDED_LIST_CAP + 50 }, (_, index) => `missing-${index}`);
      const job = await createEvaluation(api, user, { task_names: names, dataset: [{ prompt: 'one row' }] });
      expect(job.skipped_members).toHaveLength(names.length);
      expect(job.skipped_members_count).toBe(names.length);

      const single = await rest(api, 'GET', `${ws()}/evaluation/${job.id}`, { token: user.token });
      expect(single.body.skipped_members.map((member: { task_name: string }) => member.task_name)).toEqual(names);
      expect(single.body.skipped_members_count).toBe(names.length);

      const list = await rest(api, 'GET', `${ws()}/evaluations`, { token: user.token });
      const listed = list.body.items.find((item: { id: string }) => item.id === job.id);
      expect(listed.skipped_members.map((member: { task_name: string }) => member.task_name)).toEqual(names.slice(0, EMBEDDED_LIST_CAP));
      expect(listed.skipped_members_count).toBe(names.length);

      const graphql = await gql(
        api,
        `query($org: String!) {
          evaluations(org: $org, workspace: "default", page_size: 1) { items { id skipped_members { task_name } skipped_members_count } }
          projects(org: $org, workspace: "default", limit: 1) { evaluations(limit: 1) { id skipped_members { task_name } skipped_members_count } }
          evaluation(org: $org, workspace: "default", id: "${job.id}") { skipped_members { task_name } skipped_members_count }
        }`,
        { org: user.orgKey },
        user.token,
      );
      expect(graphql.body.errors).toBeUndefined();
      const { evaluations, projects, evaluation } = graphql.body.data;
      expect(evaluations.items[0]).toMatchObject({ id: job.id, skipped_members_count: names.length });
      expect(evaluations.items[0].skipped_members).toHaveLength(EMBEDDED_LIST_CAP);
      expect(projects[0].evaluations[0]).toMatchObject({ id: job.id, skipped_members_count: names.length });
      expect(projects[0].evaluations[0].skipped_members).toHaveLength(EMBEDDED_LIST_CAP);
      expect(evaluation.skipped_members).toHaveLength(names.length);
    });

    it("caps a task set's members in the REST and GraphQL lists, with member_count beside", async () => {
      const members = await insertTasks(user.orgKey, randomKey('m'), EMBEDDED_LIST_CAP + 20);
      const name = randomKey('set');
      const created = await rest(api, 'POST', `/org/${user.orgKey}/task-sets`, { token: user.token, body: { name, members } });
      expect(created.status).toBe(201);
      expect(created.body.members).toHaveLength(members.length);

      const single = await rest(api, 'GET', `/org/${user.orgKey}/task-sets/${name}`, { token: user.token });
      expect(single.body).toMatchObject({ members, member_count: members.length });

      const list = await rest(api, 'GET', `/org/${user.orgKey}/task-sets`, { token: user.token });
      const listed = list.body.task_sets.find((set: { name: string }) => set.name === name);
      expect(listed).toMatchObject({ members: members.slice(0, EMBEDDED_LIST_CAP), member_count: members.length });

      const graphql = await gql(
        api,
        `query($org: String!) {
          task_sets(org: $org, limit: 5) { task_sets { name members member_count tasks(limit: 3) { name } } }
          organization(org: $org) { task_sets(limit: 5) { name members member_count } }
        }`,
        { org: user.orgKey },
        user.token,
      );
      expect(graphql.body.errors).toBeUndefined();
      const set = graphql.body.data.task_sets.task_sets.find((item: { name: string }) => item.name === name);
      expect(set.members).toHaveLength(EMBEDDED_LIST_CAP);
      expect(set.member_count).toBe(members.length);
      expect(set.tasks.map((task: { name: string }) => task.name)).toEqual(members.slice(0, 3));
      const navigated = graphql.body.data.organization.task_sets.find((item: { name: string }) => item.name === name);
      expect(navigated).toMatchObject({ member_count: members.length });
      expect(navigated.members).toHaveLength(EMBEDDED_LIST_CAP);
    });
  });
});

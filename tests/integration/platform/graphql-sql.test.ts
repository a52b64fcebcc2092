import { REPLY_BYTES } from '../../../src/core/graphql-sql/compile';
import { QueryTypes } from 'sequelize';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { appendMessages, createGroup, ESCAPED_GROUP, ESCAPED_SESSION, createProject, createWorkspace, saveSession, sessionsPath } from '../../factories/sessions';
import { config, overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { createApiKey } from '../../factories/api-keys';
import { publishTask } from '../../factories/catalogs';
import { gql, rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

/**
 * A GraphQL query whose every field has a SQL description is answered by one
 * statement that PostgreSQL turns into the reply (core/graphql-sql), not by
 * the resolvers. Nothing but this file keeps the two equal: each document
 * runs both ways and the replies must be the same JSON, keys in the same
 * order (`canonical`: the text of a jsonb value such as `labels` comes from
 * PostgreSQL with a space after each `:` and `,`, which no JSON reader sees).
 */
const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let boss: TestUser;
let ids: Record<string, string>;
let secondWs: string;

const isCompiled = (sql: string) => sql.includes("'null'::json)::text AS") && sql.includes(`b.${REPLY_BYTES}`);
/** A reply's JSON rewritten without insignificant whitespace: same values, same key order. */
const canonical = (text: string) => JSON.stringify(JSON.parse(text));

/** The reply with the SQL path on, the reply executing the resolvers, and whether the first was compiled. */
async function bothWays(query: string, variables: Record<string, unknown> = {}, user: TestUser = boss) {
  const enabled = config().GRAPHQL_SQL;
  try {
    overrideConfig({ GRAPHQL_SQL: true });
    const compiled = await countStatements(() => gql(api, query, variables, user.token));
    overrideConfig({ GRAPHQL_SQL: false });
    const executed = await gql(api, query, variables, user.token);
    // Answered from SQL: the compiled statement ran last (a failing one would be followed by the resolvers' own).
    const last = compiled.statements[compiled.statements.length - 1];
    return { compiled: compiled.result, executed, statements: compiled.statements, usedSql: last !== undefined && isCompiled(last) };
  } finally {
    overrideConfig({ GRAPHQL_SQL: enabled });
  }
}

/** Asserts the same status and bytes both ways, the SQL path taken, and no errors; returns the data. */
async function sameReply(query: string, variables: Record<string, unknown> = {}, user: TestUser = boss): Promise<any> {
  const both = await bothWays(query, variables, user);
  expect(both.executed.body.errors).toBeUndefined();
  expect(both.usedSql).toBe(true);
  expect([both.compiled.status, canonical(both.compiled.text)]).toEqual([both.executed.status, canonical(both.executed.text)]);
  return both.compiled.body.data;
}

const SESSION_FIELDS = `id agent model title origin visibility workspace_id user_id project_id project_key project_name runtime_id
  group_id labels message_count preview_text last_message_at created_at updated_at archived_at frozen_at frozen_by shared_at`;
const GROUP_FIELDS = `id kind status title worker capability capability_version evaluation_id evaluation_item_id evaluation_item_attempt_id
  runtime_id active_session_count session_count message_count total_tokens created_at updated_at started_at completed_at last_activity_at`;
const PERSON = 'id email username full_name';
const PROJECT_FIELDS = 'id key name description workspace_id is_default created_at updated_at';
const WORKSPACE_FIELDS = 'id org_id key name description is_active is_default created_by created_at updated_at org_name';

beforeAll(async () => {
  roles = await createOrgWithRoles();
  boss = roles.owner;
  const on = { orgKey: roles.orgKey };
  const { contributor } = roles;
  const second = await createProject(roles.orgKey, 'default', 'second');
  const group = await createGroup(api, boss, ESCAPED_GROUP, on);
  const plain = await saveSession(api, boss, {}, on);
  const rich = await saveSession(api, boss, { ...ESCAPED_SESSION, group_id: group.id }, on);
  const shared = await saveSession(api, contributor, { visibility: 'workspace', agent: 'agent-y', model: 'model-b', group_id: group.id, project_id: second.id }, on);
  const hidden = await saveSession(api, contributor, { title: 'private to the contributor', group_id: group.id }, on);
  await appendMessages(api, boss, rich.id, [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'a', usage: { input_tokens: 100000000, output_tokens: 7, cost_usd: 1e-7 } },
  ], on);
  await database().query(`UPDATE sessions SET project_id = NULL WHERE id = $id`, { bind: { id: plain.id } });
  expect((await rest(api, 'POST', `${sessionsPath(roles.orgKey)}/${plain.id}/freeze`, { token: boss.token })).status).toBe(200);
  const archived = await saveSession(api, boss, { title: 'archived', group_id: group.id }, on);
  expect((await rest(api, 'POST', `${sessionsPath(roles.orgKey)}/${archived.id}/archive`, { token: boss.token })).status).toBe(200);
  secondWs = (await createWorkspace(roles.orgKey)).key;
  await saveSession(api, boss, { title: 'in the second workspace' }, { ...on, ws: secondWs });
  ids = { group: group.id, plain: plain.id, rich: rich.id, shared: shared.id, hidden: hidden.id, archived: archived.id };
});

describe('GraphQL queries answered by one SQL statement', () => {
  it('answers every described field of workspaces, sessions, groups, people and projects exactly as the resolvers do', async () => {
    const data = await sameReply(`query($org: String!) { workspace(org: $org, workspace: "default") { ${WORKSPACE_FIELDS}
      sessions(limit: 20) { ${SESSION_FIELDS} group { ${GROUP_FIELDS} sessions(limit: 10) { id title archived_at } }
        created_by { ${PERSON} } creator { ${PERSON} } shared_by { ${PERSON} } project { ${PROJECT_FIELDS} } } } }`, { org: roles.orgKey });
    const byId = new Map(data.workspace.sessions.map((session: { id: string }) => [session.id, session]));
    // Visible active sessions only: the contributor's private one and the archived one are not listed.
    expect([...byId.keys()].sort()).toEqual([ids.plain, ids.rich, ids.shared].sort());
    expect(byId.get(ids.rich)).toMatchObject({ message_count: 2, labels: { tier: ['gold', 'silver'] }, group: { id: ids.group, session_count: 4 } });
    expect(byId.get(ids.shared)).toMatchObject({ project_key: 'second', shared_by: { id: roles.contributor.id } });
    expect(byId.get(ids.plain)).toMatchObject({ project: null, project_key: null, group: null, frozen_by: 'user', shared_by: null });
    // The group lists every visible session of the group, archived ones included, not the contributor's private one.
    const inGroup = (byId.get(ids.rich) as { group: { sessions: { id: string }[] } }).group.sessions.map((session) => session.id);
    expect(inGroup.sort()).toEqual([ids.rich, ids.shared, ids.archived].sort());
    expect(data.workspace.org_name).toBe(roles.orgKey);
  });

  it('keeps aliases, fragments, inline fragments, __typename, @skip/@include and merged fields in the order executing gives them', async () => {
    const query = `query($org: String!, $withGroup: Boolean!, $noPeople: Boolean!) {
      __typename
      home: workspace(org: $org, workspace: "default") { ...ws sessions(limit: 100) { ...session __typename id } }
      other: workspace(org: $org, workspace: "${secondWs}") { key sessions { title } } }
      fragment ws on WorkspaceResponse { __typename name key }
      fragment session on SessionResponse {
        sessionId: id
        ... on SessionResponse { title owner: created_by @skip(if: $noPeople) { username } }
        group @include(if: $withGroup) { kind ... on SessionGroupSummary { status kind } }
        created_by @include(if: $noPeople) { id }
      }`;
    for (const flags of [{ withGroup: true, noPeople: false }, { withGroup: false, noPeople: true }]) {
      const data = await sameReply(query, { org: roles.orgKey, ...flags });
      expect(data.home.sessions).toHaveLength(3);
      expect(Object.keys(data.home.sessions[0])).toEqual(flags.withGroup ? ['sessionId', 'title', 'owner', 'group', '__typename', 'id'] : ['sessionId', 'title', 'created_by', '__typename', 'id']);
      expect(data.other.sessions).toEqual([{ title: 'in the second workspace' }]);
    }
  });

  it('keeps reply keys that are also names in the statement (j, t0, data, row)', async () => {
    const data = await sameReply(`query($org: String!) { j: workspace(org: $org, workspace: "default") { j: key t0: name data: id row: org_name
      t1: sessions(limit: 2) { j: id t2: group { j: kind } } } data: __typename }`, { org: roles.orgKey });
    expect(data.j.j).toBe('default');
    expect(data.data).toBe('Query');
    expect(data.j.t1).toHaveLength(2);
  });

  it('keeps root keys named like properties of every object (__proto__, constructor) as the resolvers do', async () => {
    const data = await sameReply(`query($org: String!) { __proto__: workspace(org: $org, workspace: "default") { __proto__: key } constructor: __typename }`, { org: roles.orgKey });
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toEqual(JSON.parse('{"__proto__": "default"}'));
    expect(Object.getOwnPropertyDescriptor(data, 'constructor')?.value).toBe('Query');
  });

  it('clamps list limits as the resolvers do, and uses their defaults', async () => {
    for (const limit of [0, -5, 1, 2, 500]) {
      const data = await sameReply(`query($org: String!, $limit: Int!) { workspace(org: $org, workspace: "default") { sessions(limit: $limit) { id } } }`, { org: roles.orgKey, limit });
      expect(data.workspace.sessions).toHaveLength(Math.min(Math.max(limit, 1), 3));
    }
    await sameReply(`query($org: String!) { workspace(org: $org, workspace: "default") { sessions { id group { sessions { id } } } } }`, { org: roles.orgKey });
  });

  it('shows another member only what that member may see', async () => {
    const data = await sameReply(`query($org: String!) { workspace(org: $org, workspace: "default") { sessions(limit: 20) { id group { sessions(limit: 10) { id } } } } }`, { org: roles.orgKey }, roles.contributor);
    // The contributor sees its own sessions (the private one included) and the shared ones; not the owner's private ones.
    expect(data.workspace.sessions.map((session: { id: string }) => session.id).sort()).toEqual([ids.shared, ids.hidden].sort());
  });

  it('costs one statement after the credential and the workspace, however many sessions and relations', async () => {
    const query = `query($org: String!, $limit: Int!) { workspace(org: $org, workspace: "default") {
      sessions(limit: $limit) { id group { kind sessions(limit: 5) { id created_by { username } } } created_by { username } project { key } } } }`;
    const one = await bothWays(query, { org: roles.orgKey, limit: 1 });
    const all = await bothWays(query, { org: roles.orgKey, limit: 100 });
    expect(all.statements.filter(isCompiled)).toHaveLength(1);
    expect(all.statements).toHaveLength(one.statements.length);
    expect(all.statements).toHaveLength(3);
    expect(canonical(all.compiled.text)).toBe(canonical(all.executed.text));
  });

  it('reads the org and workspace the variables name with the credential (2 statements); a hint that does not match only costs the usual lookup', async () => {
    const query = `query($org: String!, $workspace: String!) { workspace(org: $org, workspace: $workspace) { sessions(limit: 100) { id group { kind } created_by { username } project { key } } } }`;
    const hinted = await bothWays(query, { org: roles.orgKey, workspace: 'default' });
    expect(hinted.statements).toHaveLength(2);
    expect(hinted.statements.filter(isCompiled)).toHaveLength(1);
    expect(canonical(hinted.compiled.text)).toBe(canonical(hinted.executed.text));
    // Not a member of the organization the variables name: the same 404 either way.
    const outsider = await createUser();
    const refused = await bothWays(query, { org: roles.orgKey, workspace: 'default' }, outsider);
    expect(refused.compiled.body.errors?.[0].extensions).toMatchObject({ status: 404, type: 'not_found_error' });
    expect(refused.compiled.text).toBe(refused.executed.text);
    // Variables naming another organization than the one the query reads: it reads its own, correctly.
    const literal = `query($org: String!, $workspace: String!) { a: workspace(org: "${roles.orgKey}", workspace: "default") { key } b: workspace(org: $org, workspace: $workspace) { key } }`;
    const mismatched = await bothWays(literal, { org: outsider.orgKey, workspace: 'default' });
    expect(mismatched.compiled.body.errors?.[0].extensions).toMatchObject({ status: 404 });
    expect(mismatched.compiled.text).toBe(mismatched.executed.text);
    const own = await bothWays(literal.replace('workspace: $workspace) {', 'workspace: $workspace) @skip(if: true) {'), { org: outsider.orgKey, workspace: 'default' });
    expect(own.compiled.body.data).toEqual({ a: { key: 'default' } });
    expect(own.statements).toHaveLength(3);
  });

  it('leaves to the resolvers a query with a field that has no SQL description, with the same reply', async () => {
    for (const selection of ['project_count', 'sessions { messages { id } }', 'sessions { project { resource_counts { sessions } } }', 'projects { key }']) {
      const both = await bothWays(`query($org: String!) { workspace(org: $org, workspace: "default") { key ${selection} } }`, { org: roles.orgKey });
      expect(both.executed.body.errors).toBeUndefined();
      expect([selection, both.usedSql]).toEqual([selection, false]);
      expect(both.compiled.text).toBe(both.executed.text);
    }
    // A nested reply key PostgreSQL would cut (names of more than 63 bytes) is the resolvers'; a root key is not a
    // column name (the statement's columns are positional), so a long one is answered from SQL.
    const long = 'k'.repeat(64);
    for (const [query, sql] of [
      [`query($org: String!) { workspace(org: $org, workspace: "default") { ${long}: key } }`, false],
      [`query($org: String!) { ${long}: workspace(org: $org, workspace: "default") { key } }`, true],
    ] as const) {
      const both = await bothWays(query, { org: roles.orgKey });
      expect([both.usedSql, both.executed.body.errors]).toEqual([sql, undefined]);
      expect(both.compiled.text).toBe(both.executed.text);
    }
    expect((await bothWays(`query($org: String!) { workspace(org: $org, workspace: "default") { ${'k'.repeat(63)}: key } }`, { org: roles.orgKey })).usedSql).toBe(true);
    // A root field without a description, beside one with.
    const mixed = await bothWays(`query($org: String!) { me { id } workspace(org: $org, workspace: "default") { key } }`, { org: roles.orgKey });
    expect(mixed.usedSql).toBe(false);
    expect(mixed.compiled.text).toBe(mixed.executed.text);
  });

  it('answers a lookup that finds nothing with null and its 404 beside the other roots’ data, both ways', async () => {
    const missing = '0b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b';
    const query = `query($org: String!, $id: String!) {
      workspace(org: $org, workspace: "default") { key }
      session(org: $org, workspace: "default", session_id: $id) { id }
      task(org: $org, name: "no-such-task") { name }
    }`;
    const both = await bothWays(query, { org: roles.orgKey, id: missing });
    for (const reply of [both.compiled, both.executed]) {
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({ workspace: { key: 'default' }, session: null, task: null });
      expect((reply.body.errors ?? []).map((error) => [error.path?.[0], error.extensions.type]).sort()).toEqual([
        ['session', 'not_found_error'],
        ['task', 'not_found_error'],
      ]);
    }
    // REST still answers the miss with 404.
    expect((await rest(api, 'GET', `${sessionsPath(roles.orgKey)}/${missing}`, { token: boss.token })).status).toBe(404);
  });

  it('compiles a field declared as a whole object’s JSON only when the whole type is selected', async () => {
    await publishTask(api, boss, { name: 'whole-object', verification: { method: 'flag', hash: 'h', value: 'v', judge: { model: 'm' } } }, roles.orgKey);
    const whole = 'verification { method hash path script value timeout where judge { kind max_steps model model_params rubric system_prompt task_context } }';
    const query = (fields: string) => `query($org: String!) { tasks(org: $org, search: "whole-object") { total tasks { name ${fields} } } }`;
    const all = await sameReply(query(whole), { org: roles.orgKey });
    expect(all.tasks.tasks[0].verification).toMatchObject({ method: 'flag', value: 'v', judge: { model: 'm', kind: 'trajectory' } });
    // Some of its fields: the resolvers answer, with exactly those fields.
    for (const fields of ['verification { method }', 'verification { method judge { model } }', 'verification { hash method path script value timeout where judge { kind max_steps model model_params rubric system_prompt task_context } }']) {
      const both = await bothWays(query(fields), { org: roles.orgKey });
      expect([fields, both.usedSql, both.executed.body.errors]).toEqual([fields, false, undefined]);
      expect(both.compiled.text).toBe(both.executed.text);
    }
    expect((await bothWays(query('verification { method }'), { org: roles.orgKey })).compiled.body.data).toEqual({
      tasks: { total: 1, tasks: [{ name: 'whole-object', verification: { method: 'flag' } }] },
    });
  });

  it('answers errors exactly as the resolvers do: another organization (404), an unknown workspace (404), no credential (401)', async () => {
    const outsider = await createUser();
    const query = `query($org: String!, $ws: String!) { workspace(org: $org, workspace: $ws) { key sessions { id } } }`;
    for (const [variables, user, status] of [
      [{ org: roles.orgKey, ws: 'default' }, outsider, 404],
      [{ org: roles.orgKey, ws: 'no-such-workspace' }, boss, 404],
    ] as const) {
      const both = await bothWays(query, variables, user);
      expect(both.usedSql).toBe(false);
      expect(both.compiled.body.errors?.[0].extensions).toMatchObject({ status, type: 'not_found_error' });
      expect([both.compiled.status, both.compiled.text]).toEqual([both.executed.status, both.executed.text]);
    }
    const anonymous = await gql(api, query, { org: roles.orgKey, ws: 'default' });
    expect(anonymous.body.errors?.[0].extensions).toMatchObject({ status: 401 });
  });

  it('keeps an API key within its workspace and organization, as the resolvers do', async () => {
    const [second] = await database().query<{ id: string }>(`SELECT w.id FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.key = $org AND w.key = $ws`, {
      bind: { org: roles.orgKey, ws: secondWs },
      type: QueryTypes.SELECT,
    });
    const limited = await createApiKey(api, boss, { workspace_id: second.id });
    const query = `query($org: String!, $workspace: String!) { workspace(org: $org, workspace: $workspace) { key sessions { title created_by { username } } } }`;
    const run = async (workspace: string, sqlOn: boolean) => {
      const enabled = config().GRAPHQL_SQL;
      overrideConfig({ GRAPHQL_SQL: sqlOn });
      try {
        return await countStatements(() => rest(api, 'POST', '/graphql', { headers: { 'x-api-key': limited.key }, body: { query, variables: { org: roles.orgKey, workspace } } }));
      } finally {
        overrideConfig({ GRAPHQL_SQL: enabled });
      }
    };
    const inside = await run(secondWs, true);
    expect(inside.result.body.data.workspace.sessions).toEqual([{ title: 'in the second workspace', created_by: { username: boss.username } }]);
    expect(isCompiled(inside.statements[inside.statements.length - 1])).toBe(true);
    expect(canonical(inside.result.text)).toBe(canonical((await run(secondWs, false)).result.text));
    // The default workspace lies outside the key: the same 404 both ways, nothing read from SQL.
    const outside = await run('default', true);
    expect(outside.result.body.errors[0].extensions).toMatchObject({ status: 404, type: 'not_found_error' });
    expect(outside.statements.some(isCompiled)).toBe(false);
    expect(outside.result.text).toBe((await run('default', false)).result.text);
  });

  it('answers two roots that bind one parameter name to different values with the resolvers, each with its own filter', async () => {
    // Both lists bind $workspace_id (and the second $f_agent): one statement cannot hold two values for a name.
    const query = `query($org: String!, $second: String!) {
      a: sessions(org: $org, workspace: "default", agent: ["agent-y"]) { total sessions { agent } }
      b: sessions(org: $org, workspace: $second) { total sessions { title } } }`;
    const both = await bothWays(query, { org: roles.orgKey, second: secondWs });
    expect(both.usedSql).toBe(false);
    expect(both.compiled.text).toBe(both.executed.text);
    expect(both.compiled.body.data).toEqual({
      a: { total: 1, sessions: [{ agent: 'agent-y' }] },
      b: { total: 1, sessions: [{ title: 'in the second workspace' }] },
    });
    // The same root twice with the same values is one statement.
    const same = await bothWays(`query($org: String!) { a: sessions(org: $org, workspace: "default") { total } b: sessions(org: $org, workspace: "default") { total } }`, { org: roles.orgKey });
    expect(same.usedSql).toBe(true);
    expect(canonical(same.compiled.text)).toBe(canonical(same.executed.text));
  });

  it('gives each request its own reply when concurrent requests share one X-Request-Id', async () => {
    const other = await createUser();
    await saveSession(api, other, { title: 'other tenant' });
    const query = `query($org: String!) { workspace(org: $org, workspace: "default") { key org_name sessions(limit: 5) { title } } }`;
    const callers = Array.from({ length: 12 }, (_, index) => (index % 2 ? { user: other, org: other.orgKey } : { user: boss, org: roles.orgKey }));
    const replies = await Promise.all(
      callers.map(({ user, org }) => rest(api, 'POST', '/graphql', { token: user.token, headers: { 'x-request-id': 'shared-id' }, body: { query, variables: { org } } })),
    );
    replies.forEach((reply, index) => {
      expect(reply.body.data.workspace.org_name).toBe(callers[index].org);
    });
    expect(replies.filter((reply, index) => index % 2).every((reply) => reply.body.data.workspace.sessions[0].title === 'other tenant')).toBe(true);
  });

  it('reads no scope ahead for a mutation: a later field sees the workspace an earlier one created', async () => {
    const workspace = `w-${Date.now().toString(36)}`;
    const { result } = await countStatements(() =>
      gql(api, `mutation($org: String!, $workspace: String!) {
        create_workspace(org: $org, input: { key: $workspace, name: "Made" }) { key }
        update_workspace(org: $org, workspace: $workspace, input: { name: "Renamed" }) { key name } }`, { org: roles.orgKey, workspace }, boss.token),
    );
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data).toEqual({ create_workspace: { key: workspace }, update_workspace: { key: workspace, name: 'Renamed' } });
  });

  it('never answers a mutation from SQL', async () => {
    const { statements, result } = await countStatements(() =>
      gql(api, `mutation($org: String!) { update_workspace(org: $org, workspace: "default", input: { name: "Default" }) { key } }`, { org: roles.orgKey }, boss.token),
    );
    expect(result.body.errors).toBeUndefined();
    expect(statements.some(isCompiled)).toBe(false);
  });
});

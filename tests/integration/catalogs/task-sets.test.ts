import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { capabilityBody, catalogName, publishCapability, publishDataset, publishTask } from '../../factories/catalogs';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';
import { config, overrideConfig } from '../../../src/config/config';

const api = useTestApp();
let owner: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;
const own = catalogName('task');
const pub = catalogName('pubtask');
const priv = catalogName('privtask');

beforeAll(async () => {
  ({ owner, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
  await publishTask(api, owner, { name: own, version: '1.0.0' }, org);
  await publishTask(api, owner, { name: own, version: '1.2.0' }, org);
  await publishTask(api, stranger, { name: pub, is_public: true });
  await publishTask(api, stranger, { name: priv });
});

const base = () => `/org/${org}/task-sets`;

describe('task sets', () => {
  it('creates, reads, replaces and deletes a task set', async () => {
    const name = catalogName('set');
    const created = await rest(api, 'POST', base(), {
      token: owner.token,
      body: { name, description: 'Set', members: [own, `${own}@1.0.0`, pub, own], tags: ['web'], source: 'ctf' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, org_key: org, members: [own, `${own}@1.0.0`, pub], member_count: 3, is_public: false, tags: ['web'], source: 'ctf' });
    expect((await rest(api, 'GET', `${base()}/${name}`, { token: reader.token })).body.id).toBe(created.body.id);
    const again = await rest(api, 'POST', base(), { token: owner.token, body: { name, members: [] } });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('already_exists_error');
    const replaced = await rest(api, 'PUT', `${base()}/${name}`, { token: owner.token, body: { name, members: [own] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ members: [own], member_count: 1, description: null, tags: null });
    expect((await rest(api, 'DELETE', `${base()}/${name}`, { token: reader.token })).status).toBe(403);
    const deleted = await rest(api, 'DELETE', `${base()}/${name}`, { token: owner.token });
    expect(deleted.body).toEqual({ name, deleted: true });
    expect((await rest(api, 'GET', `${base()}/${name}`, { token: owner.token })).status).toBe(404);
  });

  it("rejects members that are malformed, unknown, or another organization's private task, with every loc", async () => {
    const res = await rest(api, 'POST', base(), { token: owner.token, body: { name: catalogName('set'), members: ['Bad Name', `${own}@1.0`] } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual([['body', 'members', 0], ['body', 'members', 1]]);
    const unknown = await rest(api, 'POST', base(), { token: owner.token, body: { name: catalogName('set'), members: [own, priv, `${own}@9.0.0`, 'nothing-here'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual([['body', 'members', 1], ['body', 'members', 2], ['body', 'members', 3]]);
  });

  it("addresses another organization's public set as org/name and hides a private one", async () => {
    const name = catalogName('set');
    await rest(api, 'POST', `/org/${stranger.orgKey}/task-sets`, { token: stranger.token, body: { name, members: [pub], is_public: true } });
    const privateName = catalogName('set');
    await rest(api, 'POST', `/org/${stranger.orgKey}/task-sets`, { token: stranger.token, body: { name: privateName, members: [priv] } });
    const res = await rest(api, 'GET', `${base()}/${stranger.orgKey}%2F${name}`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.org_key).toBe(stranger.orgKey);
    expect((await rest(api, 'GET', `${base()}/${stranger.orgKey}%2F${privateName}`, { token: reader.token })).status).toBe(404);
    const listed = await rest(api, 'GET', base(), { token: reader.token, query: { include_public: true, contains: pub } });
    expect(listed.body.task_sets.map((set: { name: string }) => set.name)).toContain(name);
    expect(listed.body.task_sets.map((set: { name: string }) => set.name)).not.toContain(privateName);
  });

  it('lists with filters, contains and paging, and facets sources and tags', async () => {
    const tag = catalogName('tag');
    for (const [index, source] of ['ctf', 'ctf', 'lab'].entries()) {
      const res = await rest(api, 'POST', base(), { token: owner.token, body: { name: `${tag}-${index}`, members: index ? [own] : [`${own}@1.2.0`], tags: [tag, `t${index}`], source } });
      expect(res.status).toBe(201);
    }
    const page = await rest(api, 'GET', base(), { token: reader.token, query: { tags: tag, sort_by: 'name', sort_dir: 'asc', limit: 2 } });
    expect(page.body).toMatchObject({ total: 3, page: 1, limit: 2, total_pages: 2, has_next: true, has_previous: false });
    expect(page.body.task_sets.map((set: { name: string }) => set.name)).toEqual([`${tag}-0`, `${tag}-1`]);
    const contains = await rest(api, 'GET', base(), { token: reader.token, query: { tags: tag, contains: own, source: 'ctf' } });
    expect(contains.body.total).toBe(2);
    const facets = await rest(api, 'GET', `${base()}/facets`, { token: reader.token, query: { tags: tag, source: 'lab' } });
    expect(facets.body).toMatchObject({ total: expect.any(Number), filtered_total: 1, sources: [{ value: 'ctf', count: 2 }, { value: 'lab', count: 1 }] });
    expect(facets.body.tags).toEqual(expect.arrayContaining([{ value: tag, count: 1 }, { value: 't2', count: 1 }]));
  });

  it('changes visibility (writers) and works through GraphQL', async () => {
    const name = catalogName('set');
    await runOperation(api, 'CreateTaskSet', { org, input: { name, members: [own] } }, owner.token);
    expect((await rest(api, 'PATCH', `${base()}/${name}/visibility`, { token: reader.token, body: { is_public: true } })).status).toBe(403);
    const res = await runOperation(api, 'SetTaskSetVisibility', { org, name, is_public: true }, owner.token);
    expect(res.body.data.set_task_set_visibility.is_public).toBe(true);
    expect((await rest(api, 'GET', `/org/${stranger.orgKey}/task-sets/${org}%2F${name}`, { token: stranger.token })).status).toBe(200);
  });
});

describe('GraphQL navigation for catalog dashboards', () => {
  it('resolves organization → catalogs, task set → member tasks and capability → versions in as many statements for 8 parents as for 2', async () => {
    const user = await createUser();
    const seed = async (count: number) => {
      for (let index = 0; index < count; index += 1) {
        const task = catalogName('nav');
        await publishTask(api, user, { name: task, version: '1.0.0' });
        await publishTask(api, user, { name: task, version: '1.1.0' });
        await publishDataset(api, user, { name: catalogName('nav') });
        const capability = catalogName('nav');
        await publishCapability(api, user, capabilityBody(capability, '1.0.0'));
        await publishCapability(api, user, capabilityBody(capability, '1.1.0'));
        const set = await rest(api, 'POST', `/org/${user.orgKey}/task-sets`, { token: user.token, body: { name: catalogName('nav'), members: [task, `${task}@1.0.0`, pub] } });
        expect(set.status).toBe(201);
      }
    };
    await seed(2);
    const two = await countStatements(() => runOperation(api, 'CatalogDashboard', { org: user.orgKey }, user.token));
    expect(two.result.body.errors).toBeUndefined();
    await seed(6);
    const eight = await countStatements(() => runOperation(api, 'CatalogDashboard', { org: user.orgKey }, user.token));
    expect(eight.result.body.errors).toBeUndefined();
    const data = eight.result.body.data.organization;
    expect(data.task_sets).toHaveLength(8);
    expect(data.capabilities).toHaveLength(8);
    expect(data.task_sets[0].tasks.map((task: { version: string }) => task.version)).toEqual(['1.1.0', '1.0.0', '1.0.0']);
    expect(data.task_sets[0].tasks[2].org_key).toBe(stranger.orgKey);
    expect(data.capabilities[0].version_history.map((item: { version: string }) => item.version)).toEqual(['1.1.0', '1.0.0']);
    expect(eight.statements.length).toBe(two.statements.length);
    expect(eight.statements.length).toBeLessThan(12);
  });

  it("reads only each parent's first `limit` rows: an organization's catalogs and a capability's versions", async () => {
    const user = await createUser();
    for (let index = 0; index < 12; index += 1) {
      await publishDataset(api, user, { name: catalogName('big'), summary: 's'.repeat(10_000) });
    }
    const capability = catalogName('versions');
    for (const version of ['1.0.0', '1.1.0', '1.2.0']) await publishCapability(api, user, capabilityBody(capability, version));
    const query = `query($org: String!) { organization(org: $org) { datasets(limit: 2) { name summary } capabilities(limit: 1) { version_history(limit: 2) { version } } } }`;
    // Two datasets' rows fit in 40 KB; the organization's twelve (~120 KB) do not.
    const bound = config().MAX_STATEMENT_READ_BYTES;
    overrideConfig({ MAX_STATEMENT_READ_BYTES: 40_000 });
    try {
      const res = await gql(api, query, { org: user.orgKey }, user.token);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.organization.datasets).toHaveLength(2);
      expect(res.body.data.organization.capabilities[0].version_history.map((item: { version: string }) => item.version)).toEqual(['1.2.0', '1.1.0']);
    } finally {
      overrideConfig({ MAX_STATEMENT_READ_BYTES: bound });
    }
  });
});

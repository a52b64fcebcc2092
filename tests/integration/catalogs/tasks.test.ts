import crypto from 'node:crypto';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { catalogName, publishTask } from '../../factories/catalogs';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let owner: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;
const tag = catalogName('tag');
const names: string[] = [];

beforeAll(async () => {
  ({ owner, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
  const rows = [
    { difficulty: 'easy', author: 'ann', source: 'ctf', tags: [tag, 'web'], file_size: 30 },
    { difficulty: 'hard', author: 'bob', source: 'ctf', tags: [tag, 'pwn'], file_size: 10 },
    { difficulty: 'easy', author: 'bob', source: 'lab', tags: [tag, 'web', 'pwn'], file_size: 20 },
    { difficulty: null, author: null, source: null, tags: [tag], file_size: 0 },
  ];
  for (const [index, extra] of rows.entries()) {
    const name = `${tag}-${index}`;
    names.push(name);
    await publishTask(api, owner, { name, version: '0.9.0', difficulty: 'medium', tags: [tag] }, org);
    await publishTask(api, owner, { name, version: '1.0.0', ...extra }, org);
  }
  await publishTask(api, stranger, { name: `${tag}-public`, is_public: true, difficulty: 'insane', tags: [tag] });
  await publishTask(api, stranger, { name: `${tag}-private`, difficulty: 'insane', tags: [tag] });
});

const list = (query: Record<string, string | number | boolean | string[]>) => rest(api, 'GET', `/org/${org}/tasks`, { token: reader.token, query: { tags: tag, ...query } });
const listed = (res: { body: { tasks: { name: string }[] } }) => res.body.tasks.map((item) => item.name);

describe('task list (spec 19)', () => {
  it('gives one entry per name at its latest version, with every TaskSummary field', async () => {
    const res = await list({ sort_by: 'name', sort_dir: 'asc' });
    expect(res.status).toBe(200);
    expect(listed(res)).toEqual(names);
    expect(res.body.tasks[0]).toMatchObject({
      version: '1.0.0', org_key: org, version_count: 2, is_public: false, template_status: 'pending', sandbox_provider: 'hosted',
      verification: null, ports: null, oci_digest: null, license: null, description: null,
    });
  });

  it('filters OR within a parameter and by tag overlap, on the latest version only', async () => {
    expect(listed(await list({ difficulty: ['easy', 'hard'], sort_by: 'name', sort_dir: 'asc' }))).toEqual(names.slice(0, 3));
    expect(listed(await list({ difficulty: 'medium' }))).toEqual([]);
    expect(listed(await list({ author: 'bob', source: 'lab' }))).toEqual([names[2]]);
    expect(listed(await list({ tags: ['pwn', 'nothing'], sort_by: 'name', sort_dir: 'asc' }))).toEqual([names[1], names[2]]);
    expect(listed(await list({ search: `${tag}-3` }))).toEqual([names[3]]);
  });

  it('sorts with nulls last and a total order', async () => {
    expect(listed(await list({ sort_by: 'file_size', sort_dir: 'desc' }))).toEqual([names[0], names[2], names[1], names[3]]);
    expect(listed(await list({ sort_by: 'author', sort_dir: 'asc' })).slice(0, 1)).toEqual([names[0]]);
    expect(listed(await list({ sort_by: 'author', sort_dir: 'asc' }))[3]).toBe(names[3]);
    const limit = await list({ limit: 101 });
    expect(limit.status).toBe(422);
    expect(limit.body.errors[0].loc).toEqual(['query', 'limit']);
  });

  it("adds public tasks of other organizations and never a private one", async () => {
    expect(listed(await list({ include_public: true })).sort()).toEqual([...names, `${tag}-public`].sort());
    expect(listed(await list({ public_only: true }))).toEqual([`${tag}-public`]);
    expect((await rest(api, 'GET', `/org/${org}/tasks/${stranger.orgKey}%2F${tag}-private`, { token: reader.token })).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${org}/tasks/${stranger.orgKey}%2F${tag}-public`, { token: reader.token })).body.org_key).toBe(stranger.orgKey);
  });
});

describe('task facets (spec 20)', () => {
  it('computes each dimension with the other filters and its own excluded, plus totals and scope counts, in one statement', async () => {
    const { result: res, statements } = await countStatements(() =>
      rest(api, 'GET', `/org/${org}/tasks/facets`, { token: reader.token, query: { tags: tag, difficulty: 'easy', author: 'bob' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.filtered_total).toBe(1);
    expect(res.body.total).toBe(4);
    // difficulties: the author filter and tag applied, the difficulty filter not.
    expect(res.body.difficulties).toEqual(['easy', 'hard']);
    // authors: the difficulty filter applied, the author filter not.
    expect(res.body.authors).toEqual(['ann', 'bob']);
    expect(res.body.sources).toEqual(['lab']);
    expect(res.body.tags.sort()).toEqual(['pwn', tag, 'web'].sort());
    expect(res.body.scope_counts).toEqual({ org: 4, public: expect.any(Number), mine: null });
    expect(res.body.scope_counts.public).toBeGreaterThanOrEqual(1);
    expect(statements.filter((sql) => sql.includes('WITH base'))).toHaveLength(1);
    const withPublic = await runOperation(api, 'TaskFacets', { org, tags: [tag], include_public: true }, reader.token);
    expect(withPublic.body.data.task_facets.filtered_total).toBe(5);
    expect(withPublic.body.data.task_facets.total).toBeGreaterThanOrEqual(5);
    expect(withPublic.body.data.task_facets.difficulties).toContain('insane');
  });
});

describe('task publishing', () => {
  it('stores verification with the flag_hash and submission_path aliases and fills the defaults', async () => {
    const name = catalogName('t');
    const res = await rest(api, 'POST', `/org/${org}/tasks`, {
      token: owner.token,
      body: {
        name, version: '1.0.0', readme: '# Task', ports: { web: [80, 443] },
        verification: { method: 'flag_and_judge', flag_hash: 'abc', submission_path: '/out/flag.txt', judge: { model: 'judge-1' } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.ports).toEqual({ web: [80, 443] });
    expect(res.body.verification).toEqual({
      method: 'flag_and_judge', hash: 'abc', path: '/out/flag.txt', script: null, value: null, timeout: 30, where: 'environment',
      judge: { kind: 'trajectory', max_steps: 50, model: 'judge-1', model_params: {}, rubric: null, system_prompt: null, task_context: {} },
    });
    const readme = await rest(api, 'GET', `/org/${org}/tasks/${name}/readme`, { token: reader.token });
    expect(readme.body).toEqual({ name, version: '1.0.0', content: '# Task' });
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}/1.0.0/readme`, { token: reader.token })).body.content).toBe('# Task');
  });

  it('rejects bad verification, judge bounds, ports and names with 422 and every loc', async () => {
    const res = await rest(api, 'POST', `/org/${org}/tasks`, {
      token: owner.token,
      body: { name: 'Not A Slug', version: '1.0.0', verification: { method: 'magic', judge: { model: '', max_steps: 501 } } },
    });
    expect(res.status).toBe(422);
    const locs = res.body.errors.map((item: { loc: unknown[] }) => item.loc);
    expect(locs).toEqual(expect.arrayContaining([['body', 'name'], ['body', 'verification', 'method']]));
    const judge = await rest(api, 'POST', `/org/${org}/tasks`, {
      token: owner.token,
      body: { name: catalogName('t'), version: '1.0.0', verification: { method: 'outcome_judge', judge: { model: '', max_steps: 0 } } },
    });
    expect(judge.status).toBe(422);
    expect(judge.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual(
      expect.arrayContaining([['body', 'verification', 'judge', 'model'], ['body', 'verification', 'judge', 'max_steps']]),
    );
    const rules = await rest(api, 'POST', `/org/${org}/tasks`, {
      token: owner.token,
      body: { name: catalogName('t'), version: '1.0.0', ports: { web: ['x'] }, verification: { method: 'flag', hash: 'a', flag_hash: 'b' } },
    });
    expect(rules.status).toBe(422);
    expect(rules.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual(
      expect.arrayContaining([['body', 'ports', 'web'], ['body', 'verification', 'flag_hash']]),
    );
    const missing = await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name: catalogName('t'), version: '1.0.0', verification: { method: 'script' } } });
    expect(missing.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual([['body', 'verification', 'script']]);
  });

  it('refuses tags, author and source too large for the list index entry with 422 at the tags, and stores nothing', async () => {
    const name = catalogName('big-tags');
    // 30 tags of 100 characters that do not compress: ~3 KB, past what one btree entry holds.
    const tags = Array.from({ length: 30 }, (_, index) => `${index}-${crypto.randomBytes(75).toString('base64url')}`.slice(0, 100));
    const res = await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name, version: '1.0.0', tags } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['body', 'tags'], msg: expect.stringContaining('at most 2400'), type: 'too_long' }]);
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}`, { token: owner.token })).status).toBe(404);
    // The same tags, fewer of them, are fine.
    expect((await publishTask(api, owner, { name, tags: tags.slice(0, 10) }, org)).name).toBe(name);
  });

  it('changes the visibility of a task and deletes versions (writers only)', async () => {
    const name = catalogName('t');
    await publishTask(api, owner, { name }, org);
    expect((await rest(api, 'PATCH', `/org/${org}/tasks/${name}/visibility`, { token: reader.token, body: { is_public: true } })).status).toBe(403);
    const res = await runOperation(api, 'SetTaskVisibility', { org, name, is_public: true }, owner.token);
    expect(res.body.data.set_task_visibility.is_public).toBe(true);
    expect((await rest(api, 'GET', `/org/${stranger.orgKey}/tasks/${org}%2F${name}`, { token: stranger.token })).status).toBe(200);
    const deleted = await runOperation(api, 'DeleteTaskVersion', { org, name, version: '1.0.0' }, owner.token);
    expect(deleted.body.data.delete_task_version).toEqual({ name, version: '1.0.0', deleted: true });
  });
});

import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { catalogName, publishDataset } from '../../factories/catalogs';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;
const tag = catalogName('tag');
const names: string[] = [];

beforeAll(async () => {
  ({ owner, contributor, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
  const rows = [
    { row_count: 10, file_size_bytes: 500, license: 'mit', format: 'parquet', size_category: 'small', task_categories: ['qa'], tags: [tag, 'a'] },
    { row_count: 30, file_size_bytes: 100, license: 'apache-2.0', format: 'csv', size_category: 'small', task_categories: ['qa', 'code'], tags: [tag, 'b'] },
    { row_count: null, file_size_bytes: 300, license: 'mit', format: 'csv', size_category: 'large', task_categories: ['code'], tags: [tag] },
    { row_count: 20, file_size_bytes: null, license: null, format: 'json', size_category: null, task_categories: null, tags: [tag, 'a'] },
  ];
  for (const [index, extra] of rows.entries()) {
    const name = `${tag}-${index}`;
    names.push(name);
    await publishDataset(api, index % 2 ? contributor : owner, { name, summary: `Dataset number ${index}`, ...extra }, org);
  }
  await publishDataset(api, owner, { name: names[0], version: '1.1.0', summary: 'Dataset number 0, again', ...rows[0] }, org);
  await publishDataset(api, stranger, { name: `${tag}-public`, is_public: true, tags: [tag] });
  await publishDataset(api, stranger, { name: `${tag}-private`, tags: [tag] });
});

const list = (query: Record<string, string | number | boolean | string[]>, user = reader) => rest(api, 'GET', `/org/${org}/datasets`, { token: user.token, query: { tags: tag, ...query } });
const listed = (res: { body: { datasets: { name: string }[] } }) => res.body.datasets.map((item) => item.name.split('/')[1]);

describe('dataset list (spec 16)', () => {
  it('lists the latest version per name with every required field and the canonical org/name', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 4, page: 1, limit: 50, total_pages: 1, has_next: false, has_previous: false });
    const first = res.body.datasets.find((item: { name: string }) => item.name === `${org}/${names[0]}`);
    expect(first).toMatchObject({ version: '1.1.0', version_count: 2, format: 'parquet', download_count: 0, origin: {}, is_public: false, pretty_name: null, language: null });
  });

  it('sorts by row_count and file_size_bytes with nulls last and ties broken by id', async () => {
    expect(listed(await list({ sort_by: 'row_count', sort_dir: 'desc' }))).toEqual([names[1], names[3], names[0], names[2]]);
    expect(listed(await list({ sort_by: 'row_count', sort_dir: 'asc' }))).toEqual([names[0], names[3], names[1], names[2]]);
    expect(listed(await list({ sort_by: 'file_size_bytes', sort_dir: 'asc' }))).toEqual([names[1], names[2], names[0], names[3]]);
    expect(listed(await list({ sort_by: 'name', sort_dir: 'asc' }))).toEqual([...names].sort());
  });

  it('applies every filter: OR within one parameter, overlap for arrays, search on name and summary, exact name', async () => {
    expect(listed(await list({ license: ['mit', 'apache-2.0'], sort_by: 'name', sort_dir: 'asc' }))).toEqual([names[0], names[1], names[2]]);
    expect(listed(await list({ format: 'csv', size_category: 'small' }))).toEqual([names[1]]);
    expect(listed(await list({ task_categories: ['code'], sort_by: 'name', sort_dir: 'asc' }))).toEqual([names[1], names[2]]);
    expect(listed(await list({ tags: ['b', 'zzz'] }))).toEqual([names[1]]);
    expect(listed(await list({ search: 'NUMBER 3' }))).toEqual([names[3]]);
    expect(listed(await list({ name: names[2] }))).toEqual([names[2]]);
    expect(listed(await list({ name: `${org}/${names[2]}` }))).toEqual([names[2]]);
    // More than one `/` names nothing: an empty page, never an error.
    const deeper = await list({ name: `${org}/${names[2]}/x` });
    expect([deeper.status, deeper.body.total, listed(deeper)]).toEqual([200, 0, []]);
    expect(listed(await list({ mine: true }, contributor)).sort()).toEqual([names[1], names[3]].sort());
  });

  it('pages as decisions section 4 says, including a page past the end', async () => {
    const second = await list({ limit: 3, page: 2, sort_by: 'name', sort_dir: 'asc' });
    expect(second.body).toMatchObject({ total: 4, page: 2, limit: 3, total_pages: 2, has_next: false, has_previous: true });
    expect(listed(second)).toEqual([[...names].sort()[3]]);
    const past = await list({ limit: 3, page: 5 });
    expect(past.body).toMatchObject({ datasets: [], total: 4, total_pages: 2, has_previous: true, has_next: false });
    const empty = await list({ tags: catalogName('none') });
    expect(empty.body).toMatchObject({ total: 0, total_pages: 0, has_next: false, has_previous: false });
  });

  it('rejects an unknown sort_by and out-of-range paging with 422 at the query parameter', async () => {
    const sort = await list({ sort_by: 'size' });
    expect(sort.status).toBe(422);
    expect(sort.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type])).toEqual([[['query', 'sort_by'], 'enum']]);
    const paging = await list({ limit: 201, page: 0 });
    expect(paging.status).toBe(422);
    expect(paging.body.errors.map((item: { loc: unknown[] }) => item.loc).sort()).toEqual([['query', 'limit'], ['query', 'page']]);
  });

  it("adds other organizations' public datasets with include_public and lists only public ones with public_only", async () => {
    expect(listed(await list({ include_public: true })).sort()).toEqual([...names, `${tag}-public`].sort());
    expect(listed(await list({ public_only: true }))).toEqual([`${tag}-public`]);
    expect((await rest(api, 'GET', `/org/${org}/datasets/${stranger.orgKey}%2F${tag}-private`, { token: reader.token })).status).toBe(404);
    const pub = await rest(api, 'GET', `/org/${org}/datasets/${stranger.orgKey}%2F${tag}-public`, { token: reader.token });
    expect(pub.status).toBe(200);
    expect(pub.body.name).toBe(`${stranger.orgKey}/${tag}-public`);
  });

  it('facets every dimension with the other filters applied and its own excluded, in one statement', async () => {
    const res = await rest(api, 'GET', `/org/${org}/datasets/facets`, { token: reader.token, query: { tags: tag, license: 'mit' } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.body.filtered_total).toBe(2);
    expect(res.body.licenses).toEqual([{ value: 'mit', count: 2 }, { value: 'apache-2.0', count: 1 }]);
    expect(res.body.formats).toEqual([{ value: 'csv', count: 1 }, { value: 'parquet', count: 1 }]);
    expect(res.body.task_categories).toEqual([{ value: 'code', count: 1 }, { value: 'qa', count: 1 }]);
  });
});

describe('dataset versions, visibility and deletion', () => {
  it('reads by name, by name and version, and the version list', async () => {
    expect((await rest(api, 'GET', `/org/${org}/datasets/${names[0]}`, { token: reader.token })).body.version).toBe('1.1.0');
    expect((await rest(api, 'GET', `/org/${org}/datasets/${names[0]}/1.0.0`, { token: reader.token })).body.summary).toBe('Dataset number 0');
    const versions = await runOperation(api, 'DatasetVersions', { org, name: names[0] }, reader.token);
    expect(versions.body.data.dataset_versions).toMatchObject({ name: `${org}/${names[0]}`, versions: ['1.1.0', '1.0.0'], latest: { version: '1.1.0' } });
  });

  it('changes the visibility of every version; readers get 403, other organizations 404', async () => {
    const name = catalogName('vis');
    await publishDataset(api, owner, { name }, org);
    expect((await rest(api, 'PATCH', `/org/${org}/datasets/${name}/visibility`, { token: reader.token, body: { is_public: true } })).status).toBe(403);
    expect((await rest(api, 'PATCH', `/org/${org}/datasets/${name}/visibility`, { token: stranger.token, body: { is_public: true } })).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${stranger.orgKey}/datasets/${org}%2F${name}`, { token: stranger.token })).status).toBe(404);
    const res = await rest(api, 'PATCH', `/org/${org}/datasets/${name}/visibility`, { token: contributor.token, body: { is_public: true } });
    expect(res.status).toBe(200);
    expect(res.body.is_public).toBe(true);
    expect((await rest(api, 'GET', `/org/${stranger.orgKey}/datasets/${org}%2F${name}`, { token: stranger.token })).status).toBe(200);
    const bad = await rest(api, 'PATCH', `/org/${org}/datasets/${name}/visibility`, { token: owner.token, body: { is_public: 'yes' } });
    expect(bad.status).toBe(422);
  });

  it('deletes one version; readers 403, unknown version 404', async () => {
    const name = catalogName('del');
    await publishDataset(api, owner, { name }, org);
    expect((await rest(api, 'DELETE', `/org/${org}/datasets/${name}/1.0.0`, { token: reader.token })).status).toBe(403);
    expect((await rest(api, 'DELETE', `/org/${org}/datasets/${name}/2.0.0`, { token: owner.token })).status).toBe(404);
    const res = await rest(api, 'DELETE', `/org/${org}/datasets/${name}/1.0.0`, { token: owner.token });
    expect(res.body).toEqual({ name: `${org}/${name}`, version: '1.0.0', deleted: true });
    expect((await rest(api, 'GET', `/org/${org}/datasets/${name}`, { token: owner.token })).status).toBe(404);
  });
});

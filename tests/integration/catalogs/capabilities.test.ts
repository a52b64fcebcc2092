import { config, overrideConfig } from '../../../src/config/config';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { b64, capabilityBody, catalogName, publishCapability } from '../../factories/catalogs';
import { gql as graphqlRequest, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let owner: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;

beforeAll(async () => {
  ({ owner, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
});

const locs = (body: { errors: { loc: unknown[] }[] }) => body.errors.map((item) => item.loc);

describe('capability publishing', () => {
  it('computes file hashes, sizes, the bundle sha256 and an order-independent runtime digest', async () => {
    const name = catalogName('cap');
    const published = await publishCapability(api, owner, capabilityBody(name), org);
    expect(published.file_manifest).toEqual([
      { path: 'agents/scanner.md', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size_bytes: 9 },
      { path: 'README.md', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size_bytes: 7 },
    ]);
    expect(published.artifact_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(published.runtime_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(published).toMatchObject({
      name,
      version: '1.0.0',
      author_name: 'Ada',
      license: 'MIT',
      keywords: ['security'],
      is_public: false,
      component_counts: { agent: 1 },
      component_details: [{ name: 'scanner', path: 'agents/scanner.md', type: 'agent', description: 'Scans', metadata: null }],
      secrets: [{ name: 'API_TOKEN', required: true }, { name: 'OPTIONAL_KEY', required: false }],
      version_count: 1,
      versions: ['1.0.0'],
    });
    const reversed = capabilityBody(name, '1.0.1');
    reversed.files.reverse();
    const second = await publishCapability(api, owner, reversed, org);
    expect(second.runtime_digest).toBe(published.runtime_digest);
    expect(second.artifact_sha256).not.toBe(published.artifact_sha256);
  });

  it('serves the latest (spec 17), the versions (spec 18) and the readme', async () => {
    const name = catalogName('cap');
    for (const version of ['1.9.0', '1.10.0', '1.10.0-beta.1']) await publishCapability(api, owner, capabilityBody(name, version), org);
    const latest = await rest(api, 'GET', `/org/${org}/capabilities/${name}`, { token: reader.token });
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ version: '1.10.0', version_count: 3, versions: ['1.10.0', '1.10.0-beta.1', '1.9.0'] });
    const versions = await rest(api, 'GET', `/org/${org}/capabilities/${name}/versions`, { token: reader.token });
    expect(versions.body).toMatchObject({ name, versions: ['1.10.0', '1.10.0-beta.1', '1.9.0'], latest: { version: '1.10.0' } });
    const readme = await rest(api, 'GET', `/org/${org}/capabilities/${name}/readme`, { token: reader.token });
    expect(readme.body).toEqual({ name, version: '1.10.0', content: '# Hello' });
    const pinned = await rest(api, 'GET', `/org/${org}/capabilities/${name}/1.9.0/readme`, { token: reader.token });
    expect(pinned.body.version).toBe('1.9.0');
    const detail = await rest(api, 'GET', `/org/${org}/capabilities/${name}/1.9.0`, { token: reader.token });
    expect(detail.body.manifest.author).toBe('Ada');
  });

  it("keeps `owner%2Fname` in one path segment: another organization's public capability in the owner/name form", async () => {
    const name = catalogName('cap');
    await publishCapability(api, stranger, capabilityBody(name, '2.0.0', { is_public: true }));
    const encoded = `${stranger.orgKey}%2F${name}`;
    const res = await rest(api, 'GET', `/org/${org}/capabilities/${encoded}`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(`${stranger.orgKey}/${name}`);
    const versions = await rest(api, 'GET', `/org/${org}/capabilities/${encoded}/versions`, { token: reader.token });
    expect(versions.status).toBe(200);
    expect(versions.body.versions).toEqual(['2.0.0']);
    // Private again: the name is not found from another organization, and never listed.
    await rest(api, 'PATCH', `/org/${stranger.orgKey}/capabilities/${name}/visibility`, { token: stranger.token, body: { is_public: false } });
    expect((await rest(api, 'GET', `/org/${org}/capabilities/${encoded}`, { token: reader.token })).status).toBe(404);
    const listed = await rest(api, 'GET', `/org/${org}/capabilities`, { token: reader.token, query: { include_public: true, search: name } });
    expect(listed.body.capabilities).toEqual([]);
  });

  it('reports every problem of a bad bundle with its loc (422) and publishes nothing', async () => {
    const name = catalogName('cap');
    const res = await rest(api, 'POST', `/org/${org}/capabilities`, {
      token: owner.token,
      body: {
        name,
        version: '1.0',
        manifest: { components: [{ name: 'x', path: 'nowhere.md', type: 'robot' }], secrets: ['1BAD'] },
        files: [
          { path: '../etc/passwd', content_base64: b64('x') },
          { path: '/abs', content_base64: b64('x') },
          { path: 'ok.txt', content_base64: 'not base64!' },
          { path: 'ok.txt', content_base64: b64('x') },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(
      expect.arrayContaining([['body', 'version'], ['body', 'files', 0, 'path'], ['body', 'files', 1, 'path'], ['body', 'files', 2, 'content_base64'], ['body', 'files']]),
    );
    const manifest = await rest(api, 'POST', `/org/${org}/capabilities`, {
      token: owner.token,
      body: { name, version: '1.0.0', manifest: { components: [{ name: 'x', path: 'nowhere.md', type: 'robot' }], secrets: ['1BAD'] }, files: [] },
    });
    expect(manifest.status).toBe(422);
    expect(locs(manifest.body)).toEqual(
      expect.arrayContaining([['body', 'manifest', 'components', 0, 'type'], ['body', 'manifest', 'components', 0, 'path'], ['body', 'manifest', 'secrets', 0]]),
    );
    // A keyword is at most 100 characters, as a tag is (every capability of a list carries its keywords).
    const longKeyword = await rest(api, 'POST', `/org/${org}/capabilities`, { token: owner.token, body: { name, version: '1.0.0', manifest: { keywords: ['ok', 'k'.repeat(101)] }, files: [] } });
    expect([longKeyword.status, longKeyword.body.errors]).toEqual([422, [expect.objectContaining({ loc: ['body', 'manifest', 'keywords', 1], type: 'string_too_long' })]]);
    // Bounded: the manifest's size as JSON, the secrets it declares; a dataset's origin. Each is 422 at its field, at once.
    const secrets = Array.from({ length: 101 }, (_, index) => `S${index}`);
    const tooMany = await rest(api, 'POST', `/org/${org}/capabilities`, { token: owner.token, body: { name, version: '1.0.0', manifest: { secrets }, files: [] } });
    expect(tooMany.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'manifest', 'secrets'], type: 'too_long' })]);
    const duplicate = await rest(api, 'POST', `/org/${org}/capabilities`, { token: owner.token, body: { name, version: '1.0.0', manifest: { secrets: [...secrets.slice(0, 99), 'S0'] }, files: [] } });
    expect(duplicate.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'manifest', 'secrets', 99], msg: 'duplicate secret name' })]);
    const huge = await rest(api, 'POST', `/org/${org}/capabilities`, { token: owner.token, body: { name, version: '1.0.0', manifest: { origin: { blob: 'x'.repeat(130 * 1024) } }, files: [] } });
    expect(huge.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'manifest'], type: 'too_long' })]);
    const origin = await rest(api, 'POST', `/org/${org}/datasets`, { token: owner.token, body: { name: `ds-${name}`, version: '1.0.0', is_public: true, origin: { blob: 'x'.repeat(17 * 1024) } } });
    expect(origin.status).toBe(422);
    expect(origin.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'origin'], type: 'too_long' })]);
    // A component name that is an object, even one that cannot become text: 422 at the name, on both transports.
    const objectName = await rest(api, 'POST', `/org/${org}/capabilities`, {
      token: owner.token,
      body: { name, version: '1.0.0', manifest: { components: [{ name: { toString: 0 }, path: 'a', type: 'tool' }] }, files: [] },
    });
    expect(objectName.status).toBe(422);
    expect(locs(objectName.body)).toContainEqual(['body', 'manifest', 'components', 0, 'name']);
    const inline = await graphqlRequest(api, `mutation { publish_capability(org: "${org}", input: { name: "${name}", version: "1.0.0", manifest: { components: [{ name: {}, path: "a", type: "tool" }] }, files: [] }) { name } }`, {}, owner.token);
    expect(inline.body.errors![0].extensions).toMatchObject({ status: 422, errors: expect.arrayContaining([expect.objectContaining({ loc: expect.arrayContaining(['manifest', 'components', 0, 'name']) })]) });
    const notObject = await rest(api, 'POST', `/org/${org}/capabilities`, { token: owner.token, body: { name, version: '1.0.0', manifest: [1], files: [] } });
    expect(notObject.status).toBe(422);
    expect(locs(notObject.body)).toEqual([['body', 'manifest']]);
    expect((await rest(api, 'GET', `/org/${org}/capabilities/${name}`, { token: owner.token })).status).toBe(404);
  });

  it('takes bodies over 1 MiB on the routes that publish files only (capabilities, datasets)', async () => {
    const big = b64('x'.repeat(2 * 1024 * 1024));
    const name = catalogName('cap');
    const res = await rest(api, 'POST', `/org/${org}/capabilities`, {
      token: owner.token,
      body: { name, version: '1.0.0', manifest: {}, files: [{ path: 'big.bin', content_base64: big }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.file_manifest[0].size_bytes).toBe(2 * 1024 * 1024);
    const dataset = await rest(api, 'POST', `/org/${org}/datasets`, { token: owner.token, body: { name, version: '1.0.0', files: [{ path: 'big.bin', content_base64: big }] } });
    expect(dataset.status).toBe(201);
    const task = await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name, version: '1.0.0', readme: big } });
    expect(task.status).toBe(400);
    expect(task.body.type).toBe('invalid_error');
  });

  it('lists capabilities with paging and facets, and works through GraphQL', async () => {
    const keyword = catalogName('kw');
    const names = [catalogName('cap'), catalogName('cap'), catalogName('cap')];
    for (const [index, name] of names.entries()) {
      const body = capabilityBody(name);
      (body.manifest as Record<string, unknown>).keywords = [keyword, index === 0 ? 'first' : 'other'];
      (body.manifest as Record<string, unknown>).author = index === 0 ? 'Grace' : 'Ada';
      await publishCapability(api, owner, body, org);
    }
    const page = await rest(api, 'GET', `/org/${org}/capabilities`, { token: reader.token, query: { keywords: keyword, limit: 2, page: 2, sort_by: 'name', sort_dir: 'asc' } });
    expect(page.body).toMatchObject({ total: 3, page: 2, limit: 2, total_pages: 2, has_next: false, has_previous: true });
    expect(page.body.capabilities.map((item: { name: string }) => item.name)).toEqual([[...names].sort()[2]]);
    const facets = await rest(api, 'GET', `/org/${org}/capabilities/facets`, { token: reader.token, query: { keywords: keyword, author: 'Grace' } });
    expect(facets.body.filtered_total).toBe(1);
    // authors: its own filter excluded, the keyword filter applied.
    expect(facets.body.authors).toEqual([{ value: 'Ada', count: 2 }, { value: 'Grace', count: 1 }]);
    expect(facets.body.keywords).toEqual(expect.arrayContaining([{ value: keyword, count: 1 }, { value: 'first', count: 1 }]));
    const gql = await runOperation(api, 'Capabilities', { org, search: names[0] }, reader.token);
    expect(gql.body.data.capabilities.capabilities[0].name).toBe(names[0]);
    const bad = await rest(api, 'GET', `/org/${org}/capabilities`, { token: reader.token, query: { limit: 201 } });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([['query', 'limit']]);
  });
});

describe('catalog lists within the reply budget', () => {
  it('reads a page of a catalog list within the reply budget: aliased pages of large rows stop before they are all loaded', async () => {
    const publisher = await createUser();
    for (let index = 0; index < 3; index += 1) {
      await publishCapability(api, publisher, capabilityBody(catalogName('large'), '1.0.0', { description: 'd'.repeat(10_000) }), publisher.orgKey);
    }
    const before = config().MAX_REPLY_BYTES;
    overrideConfig({ MAX_REPLY_BYTES: 40 * 1024 });
    try {
      const page = await rest(api, 'GET', `/org/${publisher.orgKey}/capabilities`, { token: publisher.token });
      expect([page.status, page.body.capabilities?.length]).toEqual([200, 3]);
      // Names only, but each row is read whole (about 10 KB): the second alias is cut, the third reads nothing.
      const list = (alias: string) => `${alias}: capabilities(org: "${publisher.orgKey}") { capabilities { name } }`;
      const aliased = await countStatements(() => graphqlRequest(api, `{ ${['a', 'b', 'c', 'd'].map(list).join(' ')} }`, {}, publisher.token));
      expect(aliased.result.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
      expect(aliased.statements.filter((sql) => sql.includes('AS sort_key')).length).toBeLessThanOrEqual(2);
    } finally {
      overrideConfig({ MAX_REPLY_BYTES: before });
    }
  });
});

import semver from 'semver';
import { QueryTypes } from 'sequelize';
import { database } from '../../../src/db/database';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { catalogName, publishTask } from '../../factories/catalogs';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';
import { versionKey } from '../../../src/modules/catalogs/semver-key';
import { RESERVED_CATALOG_NAMES } from '../../../src/modules/catalogs/catalogs.inputs';

const api = useTestApp();
let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let org: string;

beforeAll(async () => {
  ({ owner, contributor, reader, orgKey: org } = await createOrgWithRoles());
});

describe('semver order', () => {
  it('sorts version keys byte-wise exactly as semver precedence', () => {
    const versions = ['1.0.0', '1.0.0-rc.1', '1.0.0-rc.2', '1.0.0-rc.10', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha-x', '1.0.0-beta.2',
      '1.9.0', '1.10.0', '2.0.0', '0.0.1', '10.0.0', '1.0.0-0', '1.0.0-1a', '2.0.0-rc.1'];
    const bySemver = [...versions].sort(semver.compare);
    const byKey = [...versions].sort((a, b) => (versionKey(a) < versionKey(b) ? -1 : versionKey(a) > versionKey(b) ? 1 : 0));
    expect(byKey).toEqual(bySemver);
  });
});

describe('publishing and versions', () => {
  it('chooses the highest semver as latest and lists versions newest first', async () => {
    const name = catalogName('t');
    for (const version of ['1.9.0', '1.0.0-rc.1', '1.10.0', '1.0.0']) await publishTask(api, owner, { name, version });
    let latest = await rest(api, 'GET', `/org/${org}/tasks/${name}`, { token: reader.token });
    expect(latest.status).toBe(200);
    expect(latest.body.version).toBe('1.10.0');
    expect(latest.body.version_count).toBe(4);
    await publishTask(api, contributor, { name, version: '2.0.0-rc.1' }, org);
    latest = await rest(api, 'GET', `/org/${org}/tasks/${name}`, { token: owner.token });
    expect(latest.body.version).toBe('2.0.0-rc.1');
    await publishTask(api, contributor, { name, version: '2.0.0' }, org);
    const versions = await rest(api, 'GET', `/org/${org}/tasks/${name}/versions`, { token: owner.token });
    expect(versions.status).toBe(200);
    expect(versions.body.versions).toEqual(['2.0.0', '2.0.0-rc.1', '1.10.0', '1.9.0', '1.0.0', '1.0.0-rc.1']);
    expect(versions.body.latest.version).toBe('2.0.0');
    const one = await rest(api, 'GET', `/org/${org}/tasks/${name}/1.9.0`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.version).toBe('1.9.0');
    const list = await rest(api, 'GET', `/org/${org}/tasks`, { token: owner.token, query: { search: name } });
    expect(list.body.tasks.map((task: { version: string }) => task.version)).toEqual(['2.0.0']);
  });

  it('moves latest back to the next highest version when the latest is deleted', async () => {
    const name = catalogName('t');
    await publishTask(api, owner, { name, version: '1.0.0' });
    await publishTask(api, owner, { name, version: '1.1.0' });
    const deleted = await rest(api, 'DELETE', `/org/${org}/tasks/${name}/1.1.0`, { token: owner.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ name, version: '1.1.0', deleted: true });
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}`, { token: owner.token })).body.version).toBe('1.0.0');
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}/1.1.0`, { token: owner.token })).status).toBe(404);
  });

  it('answers 409 already_exists_error for the same name and version again', async () => {
    const name = catalogName('t');
    await publishTask(api, owner, { name, version: '1.0.0' });
    const again = await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name, version: '1.0.0' } });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('already_exists_error');
  });

  it('lets exactly one of two concurrent publishes of one version win (201 and 409, never 500)', async () => {
    for (const kind of ['tasks', 'datasets'] as const) {
      const name = catalogName('race');
      const send = () => rest(api, 'POST', `/org/${org}/${kind}`, { token: owner.token, body: { name, version: '3.1.4' } });
      const statuses = (await Promise.all([send(), send(), send()])).map((res) => res.status).sort();
      expect(statuses).toEqual([201, 409, 409]);
      const versions = await rest(api, 'GET', `/org/${org}/${kind}/${name}/versions`, { token: owner.token });
      expect(versions.body.versions).toEqual(['3.1.4']);
    }
  });

  it('rejects a version that is not semver with 422 at the field, on REST and GraphQL', async () => {
    for (const version of ['1.0', 'v1.0.0', '1.0.0+build.1', 'latest']) {
      const res = await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name: catalogName('t'), version } });
      expect(res.status).toBe(422);
      expect(res.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual([['body', 'version']]);
    }
    const gql = await runOperation(api, 'PublishTask', { org, input: { name: 'Bad Name', version: 'x' } }, owner.token);
    expect(gql.body.errors?.[0].extensions.code ?? gql.body.errors?.[0].extensions.type).toBeDefined();
    expect(JSON.stringify(gql.body.errors)).toContain('version');
  });

  it('refuses a name that is a route of its own where a name goes (facets, activity): its latest version could not be read', async () => {
    for (const name of RESERVED_CATALOG_NAMES) {
      const res = await rest(api, 'POST', `/org/${org}/datasets`, { token: owner.token, body: { name, version: '1.0.0' } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ loc: ['body', 'name'], msg: expect.stringContaining('routes of their own'), type: 'value_error' }]);
    }
    expect((await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name: 'facets', version: '1.0.0' } })).status).toBe(422);
    // A name that only begins like one is fine.
    expect((await rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name: `facets-${catalogName('t')}`, version: '1.0.0' } })).status).toBe(201);
    // The list is the routes': every literal segment where a catalog's name goes is reserved.
    const document = (await rest(api, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> };
    const literals = Object.keys(document.paths).flatMap((route) => /^\/api\/v1\/org\/\{org\}\/(datasets|capabilities|tasks|task-sets)\/([^/{]+)$/.exec(route)?.[2] ?? []);
    expect(literals.length).toBeGreaterThan(0);
    expect([...new Set(literals)].sort()).toEqual([...RESERVED_CATALOG_NAMES].sort());
  });

  it("rejects a reader's publish with 403", async () => {
    const res = await rest(api, 'POST', `/org/${org}/tasks`, { token: reader.token, body: { name: catalogName('t'), version: '1.0.0' } });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('forbidden_error');
  });

  it('answers 422 at the path for a version that is not semver, and 404 for one that does not exist', async () => {
    const name = catalogName('t');
    await publishTask(api, owner, { name });
    for (const bad of ['not-a-version', 'v1.0.0', '1.0.0-99999999999999999999']) {
      const res = await rest(api, 'GET', `/org/${org}/tasks/${name}/${bad}`, { token: owner.token });
      expect(res.status).toBe(422);
      expect(res.body.errors.map((item: { loc: unknown[] }) => item.loc)).toEqual([['path', 'version']]);
    }
    const deleting = await rest(api, 'DELETE', `/org/${org}/datasets/${name}/1.0`, { token: owner.token });
    expect(deleting.status).toBe(422);
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}/9.9.9`, { token: owner.token })).status).toBe(404);
  });

  it('keeps exactly one latest version, the highest, when versions of one name are published at once', async () => {
    const name = catalogName('t');
    const versions = ['1.9.0', '1.10.0', '2.0.0-rc.1', '0.1.0', '1.0.0'];
    const results = await Promise.all(versions.map((version) => rest(api, 'POST', `/org/${org}/tasks`, { token: owner.token, body: { name, version } })));
    expect(results.map((res) => res.status)).toEqual(versions.map(() => 201));
    const [row] = await database().query<{ latest: string[] }>(
      `SELECT array_agg(version) FILTER (WHERE is_latest) AS latest FROM tasks t JOIN organizations o ON o.id = t.organization_id WHERE o.key = $org AND t.name = $name`,
      { bind: { org, name }, type: QueryTypes.SELECT },
    );
    expect(row.latest).toEqual(['2.0.0-rc.1']);
    const list = await rest(api, 'GET', `/org/${org}/tasks/${name}/versions`, { token: owner.token });
    expect(list.body.versions).toEqual(['2.0.0-rc.1', '1.10.0', '1.9.0', '1.0.0', '0.1.0']);
  });

  it('publishes through GraphQL as well', async () => {
    const name = catalogName('t');
    const res = await runOperation(api, 'PublishTask', { org, input: { name, version: '0.1.0' } }, contributor.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.publish_task).toMatchObject({ name, version: '0.1.0', version_count: 1, template_status: 'pending', sandbox_provider: 'hosted' });
    const versions = await runOperation(api, 'TaskVersions', { org, name }, reader.token);
    expect(versions.body.data.task_versions.versions).toEqual(['0.1.0']);
  });
});

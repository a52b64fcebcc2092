import crypto from 'node:crypto';
import { config, overrideConfig } from '../../../src/config/config';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { b64, catalogName, publishDataset } from '../../factories/catalogs';
import { rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';
import { untar } from '../../helpers/archives';
import { countStatements } from '../../helpers/statements';
import type { Readable } from 'node:stream';
import { QueryTypes } from 'sequelize';
import { database } from '../../../src/db/database';
import type { BodyRouteCall } from '../../../src/core/module';
import { replyFile } from '../../../src/modules/catalogs/signed-downloads';

/**
 * Dataset downloads and activity (decisions §14): files published with a
 * version, signed links of their archive and of each file, fetched without
 * a credential; every publish, download and delete recorded in the route
 * organization's activity, and each download counted on the version.
 */
const api = useTestApp();
let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let org: string;
let other: Awaited<ReturnType<typeof createOrgWithRoles>>;

const PUBLIC = catalogName('pub');
const PRIVATE = catalogName('priv');
const META = catalogName('meta');
const FILES: Record<string, { text: string; split?: string }> = {
  'README.md': { text: '# The data' },
  'data/test.csv': { text: 'q,a\n3,4\n', split: 'test' },
  'data/train-0.csv': { text: 'q,a\n1,2\n', split: 'train' },
  'data/train-1.csv': { text: 'q,a\n5,6\n', split: 'train' },
};
const fileInputs = () => Object.entries(FILES).map(([path, { text, split }]) => ({ path, content_base64: b64(text), ...(split ? { split } : {}) }));
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** A signed link fetched from the test server, without any credential (the host is PUBLIC_URL's). */
async function fetchLink(link: string): Promise<Response> {
  const url = new URL(link);
  return fetch(`${api.baseUrl}${url.pathname}${url.search}`);
}

const download = (user: TestUser, name: string, body: Record<string, unknown> = {}, version = '1.0.0', route = org) =>
  rest(api, 'POST', `/org/${route}/datasets/${name}/${version}/download`, { token: user.token, body });
const locs = (body: { errors?: { loc: unknown[] }[] }) => (body.errors ?? []).map((item) => item.loc);
const downloadCount = async (user: TestUser, route: string, name: string) =>
  (await rest(api, 'GET', `/org/${route}/datasets/${name}/1.0.0`, { token: user.token })).body.download_count as number;

beforeAll(async () => {
  ({ owner, contributor, reader, orgKey: org } = await createOrgWithRoles());
  other = await createOrgWithRoles();
  await publishDataset(api, owner, { name: PUBLIC, format: 'csv', is_public: true, files: fileInputs() }, org);
  await publishDataset(api, owner, { name: PRIVATE, files: [{ path: 'secret.csv', content_base64: b64('x\n1\n') }] }, org);
  await publishDataset(api, owner, { name: META, format: 'csv' }, org);
});

describe('dataset downloads (decisions §14)', () => {
  it('replies with signed links on the PUBLIC_URL host whose archive, fetched without a credential, holds every file', async () => {
    const saved = config().PUBLIC_URL;
    overrideConfig({ PUBLIC_URL: 'https://data.example.test/' });
    let res: Awaited<ReturnType<typeof download>>;
    try {
      res = await download(reader, PUBLIC);
    } finally {
      overrideConfig({ PUBLIC_URL: saved });
    }
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['download_url', 'expires_at', 'format', 'files']);
    expect(res.body.format).toBe('raw');
    expect(res.body.download_url).toMatch(/^https:\/\/data\.example\.test\/api\/v1\/downloads\/dataset-archive\?id=[^&]+&expires=\d+&signature=[A-Za-z0-9_-]+$/);
    const expires = new Date(res.body.expires_at).getTime();
    expect(expires).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    expect(res.body.files.map((file: { path: string }) => file.path)).toEqual(Object.keys(FILES).sort());
    for (const file of res.body.files) {
      expect(file).toEqual({
        path: file.path,
        split: FILES[file.path].split ?? null,
        size_bytes: Buffer.byteLength(FILES[file.path].text),
        sha256: sha256(FILES[file.path].text),
        download_url: expect.stringMatching(/^https:\/\/data\.example\.test\/api\/v1\/downloads\/dataset-file\?/),
      });
    }

    const archive = await fetchLink(res.body.download_url);
    expect(archive.status).toBe(200);
    expect(archive.headers.get('content-type')).toBe('application/gzip');
    expect(archive.headers.get('cache-control')).toBe('private, no-store');
    expect(archive.headers.get('content-disposition')).toContain(`${PUBLIC}-1.0.0.tar.gz`);
    const entries = await untar(Buffer.from(await archive.arrayBuffer()));
    expect(entries).toEqual(Object.fromEntries(Object.entries(FILES).map(([path, { text }]) => [path, text])));

    // One file's raw bytes, typed by its extension, without a credential.
    const train = res.body.files.find((file: { path: string }) => file.path === 'data/train-1.csv');
    const url = new URL(train.download_url);
    const one = await rest(api, 'GET', `${url.pathname}${url.search}`);
    expect(one.status).toBe(200);
    expect(one.text).toBe(FILES['data/train-1.csv'].text);
    expect(one.headers.get('content-type')).toContain('text/csv');
    expect(one.headers.get('cache-control')).toBe('private, no-store');
    expect(one.headers.get('content-disposition')).toContain('train-1.csv');
  });

  it("narrows the links to one split and accepts the dataset's own format", async () => {
    const res = await download(reader, PUBLIC, { split: 'train', format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.body.format).toBe('csv');
    expect(res.body.files.map((file: { path: string; split: string }) => [file.path, file.split])).toEqual([
      ['data/train-0.csv', 'train'],
      ['data/train-1.csv', 'train'],
    ]);
    const archive = await fetchLink(res.body.download_url);
    expect(archive.headers.get('content-disposition')).toContain(`${PUBLIC}-1.0.0-train.tar.gz`);
    expect(Object.keys(await untar(Buffer.from(await archive.arrayBuffer())))).toEqual(['data/train-0.csv', 'data/train-1.csv']);
    const explicitRaw = await download(reader, PUBLIC, { format: 'raw', split: 'test' });
    expect([explicitRaw.body.format, explicitRaw.body.files.map((file: { path: string }) => file.path)]).toEqual(['raw', ['data/test.csv']]);
  });

  it('refuses another format or an unknown split with 422 at the body field, both at once', async () => {
    const format = await download(reader, PUBLIC, { format: 'parquet' });
    expect(format.status).toBe(422);
    expect(format.body.type).toBe('validation_error');
    expect(locs(format.body)).toEqual([['body', 'format']]);
    expect(format.body.errors[0].msg).toContain("'raw' or 'csv'");
    const split = await download(reader, PUBLIC, { split: 'validation' });
    expect(locs(split.body)).toEqual([['body', 'split']]);
    expect(split.body.errors[0].msg).toContain('test, train');
    const both = await download(reader, PUBLIC, { format: 'json', split: 'dev' });
    expect([both.status, locs(both.body)]).toEqual([422, [['body', 'format'], ['body', 'split']]]);
    // A split that is no slug is refused by the input rules, before any look-up.
    const malformed = await download(reader, catalogName('none'), { split: 'a/b' });
    expect([malformed.status, locs(malformed.body)]).toEqual([422, [['body', 'split']]]);
    expect((await download(reader, PUBLIC, {}, 'v1')).status).toBe(422);
  });

  it('answers 404 for a version without files, an unknown version and another organization\'s private dataset', async () => {
    const meta = await download(owner, META);
    expect(meta.status).toBe(404);
    expect(meta.body).toMatchObject({ code: 404, type: 'not_found_error', detail: `Dataset '${org}/${META}' version 1.0.0 has no published files to download (it was published as metadata only)` });
    expect((await download(owner, PUBLIC, {}, '9.9.9')).status).toBe(404);
    const hidden = await download(other.owner, encodeURIComponent(`${org}/${PRIVATE}`), {}, '1.0.0', other.orgKey);
    expect([hidden.status, hidden.body.type]).toEqual([404, 'not_found_error']);
    expect((await download(other.owner, PRIVATE, {}, '1.0.0', other.orgKey)).status).toBe(404);
    expect((await download(other.owner, PRIVATE)).status).toBe(404);
    expect(await downloadCount(owner, org, PRIVATE)).toBe(0);
  });

  it("downloads another organization's public dataset as owner%2Fname: recorded in the caller's organization, counted on the owner's version", async () => {
    const before = await downloadCount(owner, org, PUBLIC);
    const res = await download(other.reader, encodeURIComponent(`${org}/${PUBLIC}`), { split: 'test' }, '1.0.0', other.orgKey);
    expect(res.status).toBe(200);
    expect(await untar(Buffer.from(await (await fetchLink(res.body.download_url)).arrayBuffer()))).toEqual({ 'data/test.csv': FILES['data/test.csv'].text });
    expect(await downloadCount(owner, org, PUBLIC)).toBe(before + 1);

    const theirs = await rest(api, 'GET', `/org/${other.orgKey}/datasets/activity`, { token: other.reader.token });
    expect(theirs.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(theirs.body.items[0]).toEqual({
      id: expect.any(String),
      dataset_name: `${org}/${PUBLIC}`,
      version: '1.0.0',
      user_id: other.reader.id,
      action: 'download',
      format: 'raw',
      created_at: expect.any(String),
    });
    // The owner's organization keeps its own activity: another organization's downloads are not in it.
    const ours = await rest(api, 'GET', `/org/${org}/datasets/activity`, { token: owner.token, query: { user_id: other.reader.id } });
    expect([ours.status, ours.body.total]).toEqual([200, 0]);
  });

  it("stops serving another organization's links once the version is made private (its own organization's still work)", async () => {
    const name = catalogName('flip');
    await publishDataset(api, owner, { name, is_public: true, files: [{ path: 'a.csv', content_base64: b64('a\n1\n') }] }, org);
    const theirs = await download(other.owner, `${org}%2F${name}`, {}, '1.0.0', other.orgKey);
    const ours = await download(reader, name);
    expect([theirs.status, ours.status]).toEqual([200, 200]);
    expect((await fetchLink(theirs.body.download_url)).status).toBe(200);
    const hidden = await rest(api, 'PATCH', `/org/${org}/datasets/${name}/visibility`, { token: owner.token, body: { is_public: false } });
    expect(hidden.status).toBe(200);
    for (const link of [theirs.body.download_url, theirs.body.files[0].download_url]) {
      const res = await fetchLink(link);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ type: 'not_found_error' });
    }
    for (const link of [ours.body.download_url, ours.body.files[0].download_url]) expect((await fetchLink(link)).status).toBe(200);
  });

  it('refuses a tampered, reused or expired signature with 403 and the envelope', async () => {
    const res = await download(reader, PUBLIC);
    const archive = new URL(res.body.download_url);
    const tampered = new URLSearchParams(archive.search);
    tampered.set('expires', String(Number(tampered.get('expires')) + 3600));
    const late = await rest(api, 'GET', `/api/v1/downloads/dataset-archive?${tampered.toString()}`);
    expect(late.status).toBe(403);
    expect(late.body).toMatchObject({ code: 403, type: 'forbidden_error', detail: 'The download link is not valid' });
    // Another split under the same signature.
    const anotherSplit = new URLSearchParams(archive.search);
    anotherSplit.set('id', `${anotherSplit.get('id')}/train`);
    expect((await rest(api, 'GET', `/api/v1/downloads/dataset-archive?${anotherSplit.toString()}`)).status).toBe(403);
    // A file's link is no archive's, and another file's path breaks its signature.
    const file = new URL(res.body.files[0].download_url);
    expect((await rest(api, 'GET', `/api/v1/downloads/dataset-archive${file.search}`)).status).toBe(403);
    const otherPath = new URLSearchParams(file.search);
    otherPath.set('id', otherPath.get('id')!.replace(/\/.*$/, '/data/test.csv'));
    expect((await rest(api, 'GET', `/api/v1/downloads/dataset-file?${otherPath.toString()}`)).status).toBe(403);
    // Valid signatures over a past time (signed the way the service signs).
    const { signedDownloadUrl } = await import('../../../src/modules/catalogs/signed-downloads');
    for (const [kind, id] of [['dataset-archive', archive.searchParams.get('id')!], ['dataset-file', file.searchParams.get('id')!]]) {
      const stale = new URL(signedDownloadUrl(kind, id, Date.now() - 3_600_000).url);
      const expired = await rest(api, 'GET', `/api/v1/downloads/${kind}${stale.search}`);
      expect(expired.status).toBe(403);
      expect(expired.body).toMatchObject({ code: 403, type: 'forbidden_error', detail: expect.stringContaining('expired') });
    }
    expect((await rest(api, 'GET', '/api/v1/downloads/dataset-file')).status).toBe(403);
  });

  it('counts two concurrent downloads exactly, each recorded', async () => {
    const name = catalogName('race');
    await publishDataset(api, owner, { name, files: [{ path: 'a.txt', content_base64: b64('a') }] }, org);
    // Several rounds: a read-then-write count loses one of two only when they interleave.
    for (let round = 1; round <= 5; round += 1) {
      const replies = await Promise.all([download(reader, name), download(contributor, name)]);
      expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
      expect(await downloadCount(owner, org, name)).toBe(2 * round);
    }
    const activity = await rest(api, 'GET', `/org/${org}/datasets/activity`, { token: reader.token, query: { dataset_name: name, limit: 100 } });
    expect(activity.body.items.map((item: { action: string }) => item.action).sort()).toEqual([...Array(10).fill('download'), 'publish']);
  });

  it('lets a reader and a workspace-limited API key download, a reader not publish (403)', async () => {
    // No body at all: every file, as published.
    const bare = await rest(api, 'POST', `/org/${org}/datasets/${PUBLIC}/1.0.0/download`, { token: reader.token });
    expect([bare.status, bare.body.format, bare.body.files.length]).toEqual([200, 'raw', Object.keys(FILES).length]);
    const workspace = await rest(api, 'GET', `/org/${org}/ws/default`, { token: owner.token });
    const key = await createApiKey(api, owner, { workspace_id: workspace.body.id });
    const byKey = await rest(api, 'POST', `/org/${org}/datasets/${PUBLIC}/1.0.0/download`, { headers: { 'x-api-key': key.key }, body: {} });
    expect(byKey.status).toBe(200);
    const refused = await rest(api, 'POST', `/org/${org}/datasets`, { token: reader.token, body: { name: catalogName('nope'), version: '1.0.0', files: fileInputs() } });
    expect([refused.status, refused.body.type]).toEqual([403, 'forbidden_error']);
  });

  it('refuses files with bad base64, a bad path or a bad split with 422 at each, and writes nothing', async () => {
    const name = catalogName('bad');
    const res = await rest(api, 'POST', `/org/${org}/datasets`, {
      token: owner.token,
      body: {
        name,
        version: '1.0.0',
        files: [
          { path: 'ok.csv', content_base64: b64('fine') },
          { path: '../escape.csv', content_base64: b64('x') },
          { path: 'b.csv', content_base64: 'not base64!' },
          { path: 'c.csv', content_base64: b64('y'), split: 'no spaces' },
          { path: 'ok.csv', content_base64: b64('again') },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(expect.arrayContaining([['body', 'files', 1, 'path'], ['body', 'files', 2, 'content_base64'], ['body', 'files', 3, 'split'], ['body', 'files']]));
    expect((await rest(api, 'GET', `/org/${org}/datasets/${name}/1.0.0`, { token: owner.token })).status).toBe(404);
    const activity = await rest(api, 'GET', `/org/${org}/datasets/activity`, { token: owner.token, query: { dataset_name: name } });
    expect(activity.body.total).toBe(0);
  });

  it('reads a file larger than 1 MiB in slices of 4 MiB as it is sent: its exact bytes, length and SHA-256 tag (304 for it), in the archive beside small ones', async () => {
    const name = catalogName('large');
    // 9 MB of text (hex of random bytes, which PostgreSQL stores uncompressed) and a small file.
    const large = crypto.randomBytes(4_500_000).toString('hex');
    await publishDataset(api, owner, { name, files: [{ path: 'large.txt', content_base64: b64(large) }, { path: 'small.txt', content_base64: b64('small') }] }, org);
    const res = await download(reader, name);
    const link = res.body.files.find((file: { path: string }) => file.path === 'large.txt').download_url;
    const { result: file, statements } = await countStatements(async () => {
      const reply = await fetchLink(link);
      return { status: reply.status, headers: reply.headers, text: await reply.text() };
    });
    expect(file.status).toBe(200);
    expect(file.text === large).toBe(true);
    expect(file.headers.get('content-length')).toBe('9000000');
    expect(file.headers.get('etag')).toBe(`"sha256-${sha256(large)}"`);
    // Its size and tag, then three slices (4 + 4 + 1 MB): never the whole file in one row.
    expect(statements.filter((sql) => /substring\(f\.content/.test(sql))).toHaveLength(3);
    expect(statements.filter((sql) => /SELECT f\.content\b/.test(sql))).toHaveLength(0);
    const url = new URL(link);
    const again = await fetch(`${api.baseUrl}${url.pathname}${url.search}`, { headers: { 'if-none-match': file.headers.get('etag')! } });
    expect([again.status, await again.text()]).toEqual([304, '']);
    const head = await fetch(`${api.baseUrl}${url.pathname}${url.search}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, '9000000']);
    const archive = await fetchLink(res.body.download_url);
    const files = await untar(Buffer.from(await archive.arrayBuffer()));
    expect(Object.keys(files)).toEqual(['large.txt', 'small.txt']);
    expect(files['large.txt'] === large).toBe(true);
    expect(files['small.txt']).toBe('small');

    // A client that takes nothing more holds one slice, not the file: the stream (Readable.from, one object ahead) reads no further.
    const [row] = await database().query<{ id: string }>('SELECT id FROM datasets WHERE name = $name', { bind: { name }, type: QueryTypes.SELECT });
    const stored = { table: 'dataset_files' as const, where: 'f.dataset_id = $id AND f.path = $path', bind: { id: row.id, path: 'large.txt' }, statement: 'test-large-file' };
    let source: Readable | undefined;
    const call = { reply: () => undefined, replyStream: async (_status: number, _type: string, _headers: unknown, stream: Readable) => void (source = stream) } as unknown as BodyRouteCall;
    const held = await countStatements(async () => {
      await replyFile(call, stored, 'text/plain', {});
      await new Promise((resolve) => source!.once('readable', resolve));
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    source!.destroy();
    expect(held.statements.filter((sql) => /substring\(f\.content/.test(sql))).toHaveLength(1);
  }, 60_000);

  it('serves a file whose name is beyond ASCII, named exactly in its Content-Disposition', async () => {
    const name = catalogName('intl');
    await publishDataset(api, owner, { name, files: [{ path: 'données/été "chaud".csv', content_base64: b64('t\n30\n') }] }, org);
    const res = await download(reader, name);
    const file = await fetchLink(res.body.files[0].download_url);
    expect([file.status, await file.text()]).toEqual([200, 't\n30\n']);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="_t_ _chaud_.csv"; filename*=UTF-8''${encodeURIComponent('été "chaud".csv')}`);
  });

  it('works through GraphQL with the example operation', async () => {
    const res = await runOperation(api, 'DownloadDataset', { org, name: PUBLIC, version: '1.0.0', split: 'test' }, reader.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.download_dataset).toMatchObject({ format: 'raw', files: [{ path: 'data/test.csv', split: 'test' }] });
    const bad = await runOperation(api, 'DownloadDataset', { org, name: PUBLIC, version: '1.0.0', format: 'xml' }, reader.token);
    expect(bad.body.errors![0].extensions).toMatchObject({ type: 'validation_error' });
  });
});

describe('dataset activity (decisions §14)', () => {
  let team: Awaited<ReturnType<typeof createOrgWithRoles>>;
  const first = catalogName('first');
  const second = catalogName('second');

  beforeAll(async () => {
    team = await createOrgWithRoles();
    await publishDataset(api, team.owner, { name: first, files: [{ path: 'a.csv', content_base64: b64('a'), split: 'train' }] }, team.orgKey);
    await publishDataset(api, team.contributor, { name: second, version: '2.0.0', format: 'json', files: [{ path: 'b.json', content_base64: b64('{}') }] }, team.orgKey);
    expect((await download(team.reader, first, { split: 'train' }, '1.0.0', team.orgKey)).status).toBe(200);
    expect((await download(team.reader, second, { format: 'json' }, '2.0.0', team.orgKey)).status).toBe(200);
    expect((await rest(api, 'DELETE', `/org/${team.orgKey}/datasets/${first}/1.0.0`, { token: team.owner.token })).status).toBe(200);
  });

  const list = (query: Record<string, string | number> = {}, user?: TestUser) =>
    rest(api, 'GET', `/org/${team.orgKey}/datasets/activity`, { token: (user ?? team.reader).token, query });
  const summary = (res: { body: { items: { dataset_name: string; action: string; user_id: string; format: string | null; version: string }[] } }) =>
    res.body.items.map((item) => [item.action, item.dataset_name, item.version, item.user_id, item.format]);

  it('lists every publish, download and delete of the organization newest first, with the canonical name', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, limit: 50, offset: 0 });
    expect(summary(res)).toEqual([
      ['delete', `${team.orgKey}/${first}`, '1.0.0', team.owner.id, null],
      ['download', `${team.orgKey}/${second}`, '2.0.0', team.reader.id, 'json'],
      ['download', `${team.orgKey}/${first}`, '1.0.0', team.reader.id, 'raw'],
      ['publish', `${team.orgKey}/${second}`, '2.0.0', team.contributor.id, null],
      ['publish', `${team.orgKey}/${first}`, '1.0.0', team.owner.id, null],
    ]);
    const times = res.body.items.map((item: { created_at: string }) => new Date(item.created_at).getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('filters by user and by dataset (name or owner/name), and pages with limit and offset over an SQL total', async () => {
    expect(summary(await list({ user_id: team.reader.id })).map((row) => row[0])).toEqual(['download', 'download']);
    expect(summary(await list({ dataset_name: first })).map((row) => row[0])).toEqual(['delete', 'download', 'publish']);
    expect((await list({ dataset_name: `${team.orgKey}/${second}` })).body.total).toBe(2);
    expect((await list({ dataset_name: `${other.orgKey}/${second}` })).body.total).toBe(0);
    expect((await list({ dataset_name: `${team.orgKey}/${second}/x` })).body).toMatchObject({ total: 0, items: [] });
    expect(summary(await list({ dataset_name: first, user_id: team.owner.id })).map((row) => row[0])).toEqual(['delete', 'publish']);
    const all = summary(await list());
    const page = await list({ limit: 2, offset: 2 });
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(summary(page)).toEqual(all.slice(2, 4));
    const past = await list({ limit: 2, offset: 10 });
    expect(past.body).toMatchObject({ total: 5, items: [] });
  });

  it('refuses limit 0 or 101, a negative offset and a user_id that is no UUID with 422 at the query parameter', async () => {
    for (const [query, loc] of [
      [{ limit: 0 }, ['query', 'limit']],
      [{ limit: 101 }, ['query', 'limit']],
      [{ offset: -1 }, ['query', 'offset']],
      [{ offset: 10_001 }, ['query', 'offset']],
      [{ user_id: 'someone' }, ['query', 'user_id']],
    ] as const) {
      const res = await list(query);
      expect([res.status, res.body.type, locs(res.body)]).toEqual([422, 'validation_error', [loc]]);
    }
  });

  it("shows one organization's activity to its members only", async () => {
    expect((await list({}, team.outsider)).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${team.outsider.orgKey}/datasets/activity`, { token: team.outsider.token })).body.total).toBe(0);
  });

  it('answers the example GraphQL query the same', async () => {
    const res = await runOperation(api, 'DatasetActivity', { org: team.orgKey, limit: 2, dataset_name: second }, team.reader.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.dataset_activity).toMatchObject({ total: 2, limit: 2, offset: 0, items: [{ action: 'download', format: 'json' }, { action: 'publish', format: null }] });
  });

  it('serves no archive once its version is deleted (404)', async () => {
    const name = catalogName('gone');
    await publishDataset(api, team.owner, { name, files: [{ path: 'a.csv', content_base64: b64('a') }] }, team.orgKey);
    const link = await download(team.reader, name, {}, '1.0.0', team.orgKey);
    expect((await rest(api, 'DELETE', `/org/${team.orgKey}/datasets/${name}/1.0.0`, { token: team.owner.token })).status).toBe(200);
    const archive = new URL(link.body.download_url);
    expect((await rest(api, 'GET', `${archive.pathname}${archive.search}`)).status).toBe(404);
    const file = new URL(link.body.files[0].download_url);
    expect((await rest(api, 'GET', `${file.pathname}${file.search}`)).status).toBe(404);
  });
});

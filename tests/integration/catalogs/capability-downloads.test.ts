import crypto from 'node:crypto';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { b64, capabilityBody, catalogName, publishCapability } from '../../factories/catalogs';
import { rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';
import { untar } from '../../helpers/archives';

const api = useTestApp();
let owner: TestUser;
let other: Awaited<ReturnType<typeof createOrgWithRoles>>;
let name: string;

beforeAll(async () => {
  ({ owner } = await createOrgWithRoles());
  other = await createOrgWithRoles();
  name = catalogName('bundled');
  await publishCapability(api, owner, capabilityBody(name, '1.0.0', {
    is_public: true,
    files: [
      { path: 'agents/scanner.md', content_base64: b64('# scanner') },
      { path: 'README.md', content_base64: b64('# Hello') },
      { path: 'tools/deep/run.py', content_base64: b64('print("hi")') },
    ],
  }));
});

describe('capability files and bundles', () => {
  it('serves one published file by a path of any depth, typed by its extension', async () => {
    const readme = await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${name}/1.0.0/files/README.md`, { token: owner.token, headers: { accept: 'application/json' } });
    expect(readme.status).toBe(200);
    expect(readme.text).toBe('# Hello');
    expect(readme.headers.get('content-type')).toContain('text/markdown');
    // Shown inline, but sandboxed: a published .html or .svg opened in a browser runs nothing on the API's origin.
    expect(readme.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    // A multi-segment path (not expressible as one OpenAPI path parameter, so fetched directly).
    const deep = await fetch(`${api.baseUrl}/api/v1/org/${owner.orgKey}/capabilities/${name}/1.0.0/files/tools/deep/run.py`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe('print("hi")');
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${name}/1.0.0/files/missing.md`, { token: owner.token })).status).toBe(404);
    const malformed = await fetch(`${api.baseUrl}/api/v1/org/${owner.orgKey}/capabilities/${name}/1.0.0/files/bad/%E0%A4%A.md`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(malformed.status).toBe(404);
    const nul = await fetch(`${api.baseUrl}/api/v1/org/${owner.orgKey}/capabilities/${name}/1.0.0/files/a%00b`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(nul.status).toBe(404);
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${name}/1.0.0%00/bundle`, { token: owner.token })).status).toBe(422);
    expect((await rest(api, 'GET', `/org/${other.owner.orgKey}/capabilities/${name}/1.0.0/files/README.md`, { token: other.owner.token })).status).toBe(404);
  });

  it('sends a published file larger than 1 MiB as it reads it in slices, with its length and SHA-256 as entity tag', async () => {
    const large = catalogName('large');
    const text = crypto.randomBytes(1_500_000).toString('hex');
    await publishCapability(api, owner, capabilityBody(large, '1.0.0', { files: [{ path: 'agents/scanner.md', content_base64: b64(text) }] }));
    const { result: reply, statements } = await countStatements(async () => {
      const res = await fetch(`${api.baseUrl}/api/v1/org/${owner.orgKey}/capabilities/${large}/1.0.0/files/agents/scanner.md`, { headers: { authorization: `Bearer ${owner.token}` } });
      return { status: res.status, headers: res.headers, text: await res.text() };
    });
    expect(reply.status).toBe(200);
    expect(reply.text === text).toBe(true);
    expect(reply.headers.get('content-length')).toBe('3000000');
    expect(reply.headers.get('etag')).toBe(`"sha256-${crypto.createHash('sha256').update(text).digest('hex')}"`);
    expect(reply.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(statements.filter((sql) => /substring\(f\.content/.test(sql))).toHaveLength(1);
  });

  it('checks the credential, then the version (422 at ["path", "version"], as every REST route), on the file and owner/name bundle routes', async () => {
    for (const path of [`/org/${owner.orgKey}/capabilities/${name}/notsemver/files/README.md`, `/org/${owner.orgKey}/capabilities/${owner.orgKey}/${name}/notsemver/bundle`]) {
      const bad = await rest(api, 'GET', path, { token: owner.token });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].loc).toEqual(['path', 'version']);
      const anonymous = await rest(api, 'GET', path);
      expect(anonymous.status).toBe(401);
    }
  });

  it('gives a signed, expiring, absolute URL whose tar.gz holds the files, matching its sha256 and size, with no credential', async () => {
    const link = await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${name}/1.0.0/bundle`, { token: owner.token });
    expect(link.status).toBe(200);
    expect(link.body.download_url).toMatch(/^https?:\/\/[^/]+\/api\/v1\/downloads\/capability-bundle\?/);
    expect(new Date(link.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    const url = new URL(link.body.download_url);
    const download = await fetch(`${api.baseUrl}${url.pathname}${url.search}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    const archive = Buffer.from(await download.arrayBuffer());
    expect(archive.length).toBe(link.body.size_bytes);
    expect(crypto.createHash('sha256').update(archive).digest('hex')).toBe(link.body.sha256);
    expect(await untar(archive)).toEqual({ 'README.md': '# Hello', 'agents/scanner.md': '# scanner', 'tools/deep/run.py': 'print("hi")' });

    // Another organization reads the public capability by owner/name, encoded or not.
    const encoded = await rest(api, 'GET', `/org/${other.owner.orgKey}/capabilities/${encodeURIComponent(`${owner.orgKey}/${name}`)}/1.0.0/bundle`, { token: other.owner.token });
    expect(encoded.body.sha256).toBe(link.body.sha256);
    const raw = await rest(api, 'GET', `/org/${other.owner.orgKey}/capabilities/${owner.orgKey}/${name}/1.0.0/bundle`, { token: other.owner.token });
    expect(raw.body.sha256).toBe(link.body.sha256);
  });

  it("makes a version's archive once for its digest, however many links are asked for at once or later", async () => {
    const publishedName = catalogName('digest');
    await publishCapability(api, owner, capabilityBody(publishedName, '2.0.0', { files: [{ path: 'agents/scanner.md', content_base64: crypto.randomBytes(64 * 1024).toString('base64') }] }));
    const bundle = () => rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${publishedName}/2.0.0/bundle`, { token: owner.token });
    const reads = await countStatements(async () => [...(await Promise.all([bundle(), bundle(), bundle()])), await bundle()]);
    expect(reads.result.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(reads.result.map((reply) => reply.body.sha256)).size).toBe(1);
    // The files are read for one archive only.
    expect(reads.statements.filter((sql) => sql.includes('capability_files'))).toHaveLength(1);
  });

  it('refuses a tampered or expired signature with 403 and the envelope', async () => {
    const link = await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${name}/1.0.0/bundle`, { token: owner.token });
    const url = new URL(link.body.download_url);
    const tampered = new URLSearchParams(url.search);
    tampered.set('expires', String(Number(tampered.get('expires')) + 3600));
    const res = await rest(api, 'GET', `/api/v1/downloads/capability-bundle?${tampered.toString()}`);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 403, type: 'forbidden_error' });
    const past = new URLSearchParams(url.search);
    const expires = Math.floor(Date.now() / 1000) - 10;
    past.set('expires', String(expires));
    // A valid signature over a past time (signed the way the service signs).
    const { signedDownloadUrl } = await import('../../../src/modules/catalogs/signed-downloads');
    const expired = new URL(signedDownloadUrl('capability-bundle', past.get('id')!, Date.now() - 3_600_000).url);
    const stale = await rest(api, 'GET', `/api/v1/downloads/capability-bundle${expired.search}`);
    expect(stale.status).toBe(403);
    expect(stale.body.detail).toContain('expired');
    expect((await rest(api, 'GET', '/api/v1/downloads/capability-bundle')).status).toBe(403);
  });

  it("stops serving another organization's bundle link once the capability is made private (its own organization's still works)", async () => {
    const flip = catalogName('flip');
    await publishCapability(api, owner, capabilityBody(flip, '1.0.0', { is_public: true, files: [{ path: 'agents/scanner.md', content_base64: b64('# flip') }] }));
    const theirs = await rest(api, 'GET', `/org/${other.owner.orgKey}/capabilities/${owner.orgKey}%2F${flip}/1.0.0/bundle`, { token: other.owner.token });
    const ours = await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${flip}/1.0.0/bundle`, { token: owner.token });
    expect([theirs.status, ours.status]).toEqual([200, 200]);
    const fetchLink = (link: string) => fetch(`${api.baseUrl}${new URL(link).pathname}${new URL(link).search}`);
    expect((await fetchLink(theirs.body.download_url)).status).toBe(200);
    const hidden = await rest(api, 'PATCH', `/org/${owner.orgKey}/capabilities/${flip}/visibility`, { token: owner.token, body: { is_public: false } });
    expect(hidden.status).toBe(200);
    const refused = await fetchLink(theirs.body.download_url);
    expect([refused.status, ((await refused.json()) as { type: string }).type]).toEqual([404, 'not_found_error']);
    expect((await fetchLink(ours.body.download_url)).status).toBe(200);
  });
});

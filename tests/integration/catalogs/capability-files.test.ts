import { createUser, type TestUser } from '../../factories/accounts';
import { b64, catalogName } from '../../factories/catalogs';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/** Capability file names (one rule, capability-file-rules.ts) and large bundles. */
const api = useTestApp();
let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

const publish = (body: Record<string, unknown>) => rest(api, 'POST', `/org/${owner.orgKey}/capabilities`, { token: owner.token, body });

const BAD_PATHS: [string, string][] = [
  ['traversal', '../escape.md'],
  ['percent-encoded traversal', '%2e%2e/escape.md'],
  ['double-encoded traversal', '%252e%252e%252fescape.md'],
  ['an encoded slash', 'agents%2F..%2F..%2Fescape.md'],
  ['an absolute path', '/etc/passwd'],
  ['a drive letter', 'C:/Windows/win.ini'],
  ['a backslash', 'agents\\..\\escape.md'],
  ['an empty segment', 'agents//x.md'],
  ['a control character', 'agents/x\u001b[2J.md'],
  ['an encoded NUL', 'agents/x%00.md'],
  ['a C1 control character', 'agents/x\u009b.md'],
  ['a right-to-left override', 'agents/gnp\u202Eexe.md'],
  ['an encoded right-to-left override', 'agents/gnp%E2%80%AEexe.md'],
  ['a bidirectional isolate', 'agents/x\u2066.md'],
  ['a right-to-left mark', 'agents/x\u200F.md'],
  ['a Windows device name', 'agents/con.md'],
  ['more UTF-8 than one index entry holds (under 1024 characters, each segment within 255 bytes)', incompressiblePath()],
];

/** 11 segments of 85 different CJK characters (255 bytes each): 945 characters, 2,815 bytes that do not compress, the key of its file's row. */
function incompressiblePath(): string {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: 11 }, () => String.fromCodePoint(...Array.from({ length: 85 }, () => 0x4e00 + (next() % 20000)))).join('/');
}

describe('capability file names', () => {
  it('refuses every hazardous file name at its own loc with 422 value_error, and publishes nothing', async () => {
    const name = catalogName('cap');
    const files = [{ path: 'ok.md', content_base64: b64('fine') }, ...BAD_PATHS.map(([, path]) => ({ path, content_base64: b64('x') }))];
    const res = await publish({ name, version: '1.0.0', manifest: {}, files });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 422, type: 'validation_error' });
    const pathItems = res.body.errors.filter((item: { loc: unknown[] }) => item.loc[3] === 'path');
    expect(pathItems).toEqual(
      BAD_PATHS.map((_bad, index) => ({ loc: ['body', 'files', index + 1, 'path'], msg: expect.stringMatching(/^path must/), type: 'value_error' })),
    );
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/capabilities/${name}`, { token: owner.token })).status).toBe(404);
  });

  it.each(BAD_PATHS)('refuses a file name with %s (422, never stored)', async (_label, path) => {
    const name = catalogName('cap');
    const res = await publish({ name, version: '1.0.0', manifest: {}, files: [{ path, content_base64: b64('x') }] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['body', 'files', 0, 'path'], msg: expect.any(String), type: 'value_error' }]);
  });

  it('applies the same rule to component paths of the manifest', async () => {
    const res = await publish({
      name: catalogName('cap'),
      version: '1.0.0',
      manifest: { components: [{ name: 'a', path: '%2e%2e/agents', type: 'agent' }, { name: 'b', path: 'agents\u202E', type: 'agent' }] },
      files: [{ path: 'agents/a.md', content_base64: b64('a') }],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { loc: ['body', 'manifest', 'components', 0, 'path'], msg: expect.stringContaining('percent-encode'), type: 'value_error' },
      { loc: ['body', 'manifest', 'components', 1, 'path'], msg: expect.stringContaining('bidirectional'), type: 'value_error' },
    ]);
  });

  it('refuses the same names through GraphQL', async () => {
    const query = 'mutation($org: String!, $input: PublishCapabilityRequest!) { publish_capability(org: $org, input: $input) { id } }';
    const input = { name: catalogName('cap'), version: '1.0.0', manifest: {}, files: [{ path: '%2E%2E/x', content_base64: b64('x') }] };
    const res = await gql(api, query, { org: owner.orgKey, input }, owner.token);
    expect(res.body.errors?.[0].extensions).toMatchObject({ status: 422, type: 'validation_error', errors: [{ loc: ['input', 'files', 0, 'path'], type: 'value_error' }] });
  });

  it('refuses a file named as another file\'s directory, or twice, ignoring case, Unicode normalization and trailing dots and spaces (tar could not unpack the bundle), for datasets too', async () => {
    // Also paths one only on a case-insensitive or normalizing file system (Windows, macOS): A.txt and a.txt, é composed and decomposed, Tools beside tools/run.py.
    for (const files of [
      [{ path: 'tools' }, { path: 'tools/run.py' }],
      [{ path: 'a/b/c.py' }, { path: 'a/b' }],
      [{ path: 'x.md' }, { path: 'x.md' }],
      [{ path: 'A.txt' }, { path: 'a.txt' }],
      [{ path: 'caf\u00e9.txt' }, { path: 'cafe\u0301.txt' }],
      [{ path: 'Tools' }, { path: 'tools/run.py' }],
      [{ path: '\u039f\u0394\u039f\u03a3' }, { path: '\u03bf\u03b4\u03bf\u03c3' }],
      // Windows drops a segment's trailing dots and spaces.
      [{ path: 'data/train.csv' }, { path: 'data/train.csv.' }],
      [{ path: 'a' }, { path: 'A ' }],
      [{ path: 'data' }, { path: 'data. /x' }],
      // Paths that sort between a file and what lies under it (`!` and `.` come before `/`) do not hide it.
      [{ path: 'a' }, { path: 'a!b' }, { path: 'a.c' }, { path: 'a-z/q' }, { path: 'a/x' }],
      [{ path: 'a/x' }, { path: 'a.c' }, { path: 'a' }],
    ]) {
      const res = await publish({ name: catalogName('cap'), version: '1.0.0', manifest: {}, files: files.map((file) => ({ ...file, content_base64: b64('x') })) });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ loc: ['body', 'files'], msg: expect.stringContaining("another file's directory"), type: 'value_error' }]);
    }
    const dataset = await rest(api, 'POST', `/org/${owner.orgKey}/datasets`, {
      token: owner.token,
      body: { name: catalogName('ds'), version: '1.0.0', files: [{ path: 'train', content_base64: b64('x') }, { path: 'train/a.csv', content_base64: b64('y') }] },
    });
    expect(dataset.status).toBe(422);
    expect(dataset.body.errors[0].loc).toEqual(['body', 'files']);
    const caseOnly = await rest(api, 'POST', `/org/${owner.orgKey}/datasets`, {
      token: owner.token,
      body: { name: catalogName('ds'), version: '1.0.0', files: [{ path: 'Train.csv', content_base64: b64('x') }, { path: 'train.csv', content_base64: b64('y') }] },
    });
    expect(caseOnly.status).toBe(422);
    // Names that share a beginning but not a directory are fine.
    const fine = await publish({ name: catalogName('cap'), version: '1.0.0', manifest: {}, files: ['tools.md', 'tools/run.py', 'toolsmith/x.py', '.hidden/a.b', 'a.b.c', 'a!b', 'ab/x', 'a/b'].map((path) => ({ path, content_base64: b64(path) })) });
    expect(fine.status).toBe(201);
  });

  it('refuses a long path of dots by its length, without the uniqueness rule backtracking over it (it took seconds for 30,000 dots)', async () => {
    for (const path of [`${'.'.repeat(200_000)}a`, `${' '.repeat(100_000)}/${'/'.repeat(100_000)}x`]) {
      const res = await publish({ name: catalogName('cap'), version: '1.0.0', manifest: {}, files: [{ path, content_base64: '' }, { path: 'b', content_base64: '' }] });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ loc: ['body', 'files', 0, 'path'], msg: expect.stringContaining('at most 1024 characters'), type: expect.any(String) }]);
    }
  });

  it('keeps ordinary names: dot files, spaces, non-ASCII letters, a literal percent sign', async () => {
    const paths = ['.github/workflows/ci.yml', 'docs/100%25 sure.md', 'docs/été.md', 'agents/scanner v2.md'];
    const res = await publish({ name: catalogName('cap'), version: '1.0.0', manifest: {}, files: paths.map((path) => ({ path, content_base64: b64(path) })) });
    expect(res.status).toBe(201);
    expect(res.body.file_manifest.map((file: { path: string }) => file.path)).toEqual(paths);
  });
});

describe('large capability files', () => {
  // 30 MiB of bytes is 40 MiB of base64: past the size (about 3.2 MiB) where the old regular expression overflowed the
  // stack, within the route's 50 MiB body limit. One string, built by repetition.
  const RAW_BYTES = 30 * 1024 * 1024;
  const content = 'QUJD'.repeat(RAW_BYTES / 3);

  it('publishes a 40 MiB base64 file (201) with its size and hash', async () => {
    expect(content.length).toBe(40 * 1024 * 1024);
    const name = catalogName('cap');
    const res = await publish({ name, version: '1.0.0', manifest: {}, files: [{ path: 'data/big.bin', content_base64: content }] });
    expect(res.status).toBe(201);
    expect(res.body.file_manifest).toEqual([{ path: 'data/big.bin', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size_bytes: RAW_BYTES }]);
  }, 60_000);

  it('refuses 40 MiB of invalid base64 with 422 at the file, not 500', async () => {
    const res = await publish({
      name: catalogName('cap'),
      version: '1.0.0',
      manifest: {},
      files: [{ path: 'data/bad.bin', content_base64: `${content.slice(0, -4)}QU!=` }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 422, type: 'validation_error', errors: [{ loc: ['body', 'files', 0, 'content_base64'], type: 'value_error' }] });
  }, 60_000);
});

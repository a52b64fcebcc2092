import crypto from 'node:crypto';
import { database } from '../../../src/db/database';
import { claimKey, settleKey } from '../../../src/http/idempotency';
import { serverMac } from '../../../src/core/secrets';
import { createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Idempotency-Key on REST POSTs: a retried create runs once and replays its
 * reply; the key with another request is 422, while the first runs 409;
 * keys belong to a credential and last 24 hours.
 */
const api = useTestApp();
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

const newKey = () => crypto.randomUUID();

async function workspaceCount(orgKey: string, key: string): Promise<number> {
  const [rows] = await database().query(`SELECT count(*)::int AS n FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.key = $org AND w.key = $key`, {
    bind: { org: orgKey, key },
  });
  return (rows as { n: number }[])[0].n;
}

function createWorkspace(user: TestUser, key: string | null, body: Record<string, unknown>) {
  return rest(api, 'POST', `/org/${user.orgKey}/ws`, { token: user.token, body, headers: key === null ? {} : { 'Idempotency-Key': key } });
}

it('replays the first reply to a retry with the same key and body, without running it again', async () => {
  const key = newKey();
  const body = { key: `ws-${key.slice(0, 8)}`, name: 'Retried' };
  const first = await createWorkspace(owner, key, body);
  expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([201, null]);
  const again = await createWorkspace(owner, key, body);
  expect([again.status, again.headers.get('idempotent-replayed'), again.body]).toEqual([201, 'true', first.body]);
  expect(await workspaceCount(owner.orgKey, body.key)).toBe(1);
  // Without a key, the same request runs again (and conflicts).
  expect((await createWorkspace(owner, null, body)).status).toBe(409);
});

it('keeps a keyed fingerprint of the request, not a plain hash that would confirm a guessed body (a secret value)', async () => {
  const key = newKey();
  const body = { key: `ws-${key.slice(0, 8)}`, name: 'Fingerprinted' };
  expect((await createWorkspace(owner, key, body)).status).toBe(201);
  const [rows] = await database().query('SELECT fingerprint FROM idempotency_keys WHERE key = $key', { bind: { key } });
  const kept = (rows as { fingerprint: string }[])[0].fingerprint;
  const request = [`POST /api/v1/org/${owner.orgKey}/ws\n`, JSON.stringify(body)];
  expect(kept).toBe(serverMac('idempotency-fingerprint', ...request));
  expect(kept).not.toBe(crypto.createHash('sha256').update(request.join('')).digest('base64url'));
});

it('replays only to a caller who still reaches the tenant: removed from the organization, the retry is 404', async () => {
  const roles = await createOrgWithRoles();
  const key = newKey();
  const body = { key: `p-${key.slice(0, 8)}`, name: 'Made before leaving' };
  const create = () =>
    rest(api, 'POST', `/org/${roles.orgKey}/ws/default/projects`, { token: roles.contributor.token, body, headers: { 'Idempotency-Key': key } });
  expect((await create()).status).toBe(201);
  expect((await create()).headers.get('idempotent-replayed')).toBe('true');
  expect((await rest(api, 'DELETE', `/org/${roles.orgKey}/members/${roles.contributor.id}`, { token: roles.owner.token })).status).toBe(200);
  const after = await create();
  expect([after.status, after.body.type, after.headers.get('idempotent-replayed')]).toEqual([404, 'not_found_error', null]);
});

it('answers 422 to the key reused with another request', async () => {
  const key = newKey();
  expect((await createWorkspace(owner, key, { key: `ws-${key.slice(0, 8)}`, name: 'One' })).status).toBe(201);
  const reused = await createWorkspace(owner, key, { key: `ws-${key.slice(0, 8)}`, name: 'Another name' });
  expect([reused.status, reused.body.errors.map((item: { loc: string[] }) => item.loc)]).toEqual([422, [['header', 'Idempotency-Key']]]);
});

it('tells an empty body from one that is not JSON, and judges a body nested 100,000 deep as invalid input (422, never a 500)', async () => {
  const key = newKey();
  const post = (rawBody: string) => rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, rawBody, headers: { 'Idempotency-Key': key } });
  const broken = await post('{');
  expect([broken.status, broken.body.errors[0].type]).toEqual([422, 'json_invalid']);
  // Another body under the same key: not a replay of the first reply.
  const other = await post('}');
  expect(other.headers.get('idempotent-replayed')).toBeNull();
  expect(other.body.errors.map((item: { loc: string[] }) => item.loc)).toEqual([['header', 'Idempotency-Key']]);
  const deep = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, {
    token: owner.token,
    rawBody: `{"key":"deep","name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    headers: { 'Idempotency-Key': newKey() },
  });
  expect(deep.status).toBe(422);
});

it('keeps keys per credential: another user with the same key runs their own request', async () => {
  const key = newKey();
  const body = { key: `ws-${key.slice(0, 8)}`, name: 'Mine' };
  expect((await createWorkspace(owner, key, body)).status).toBe(201);
  const theirs = await createWorkspace(other, key, body);
  expect([theirs.status, theirs.headers.get('idempotent-replayed')]).toEqual([201, null]);
  expect(await workspaceCount(other.orgKey, body.key)).toBe(1);
});

it('runs concurrent retries once: the others are told it is in progress, or get its reply', async () => {
  const key = newKey();
  const body = { key: `ws-${key.slice(0, 8)}`, name: 'Raced' };
  const replies = await Promise.all(Array.from({ length: 6 }, () => createWorkspace(owner, key, body)));
  const statuses = replies.map((reply) => reply.status).sort();
  expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
  expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
  expect(replies.filter((reply) => reply.status === 201 && reply.headers.get('idempotent-replayed') === null)).toHaveLength(1);
  for (const reply of replies.filter((item) => item.status === 409)) expect(reply.body.detail).toMatch(/in progress/);
  expect(await workspaceCount(owner.orgKey, body.key)).toBe(1);
});

it('keeps a refusal too (a 409 is replayed), but not a reply that carries a secret', async () => {
  const key = newKey();
  const taken = { key: `ws-${key.slice(0, 8)}`, name: 'Taken' };
  expect((await createWorkspace(owner, null, taken)).status).toBe(201);
  const refused = await createWorkspace(owner, key, taken);
  const replayed = await createWorkspace(owner, key, taken);
  expect([refused.status, replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body]).toEqual([409, 409, 'true', refused.body]);

  const keyKey = newKey();
  const created = await rest(api, 'POST', '/user/api-keys', { token: owner.token, body: { name: 'once' }, headers: { 'Idempotency-Key': keyKey } });
  expect(created.status).toBe(201);
  const retried = await rest(api, 'POST', '/user/api-keys', { token: owner.token, body: { name: 'once' }, headers: { 'Idempotency-Key': keyKey } });
  expect([retried.status, retried.body.detail]).toEqual([409, expect.stringContaining('secret')]);
  const [stored] = await database().query(`SELECT reply_body FROM idempotency_keys WHERE key = $key`, { bind: { key: keyKey } });
  expect(stored).toEqual([{ reply_body: null }]);
});

it('refuses a malformed key, takes an expired key afresh, and ignores the header without a credential', async () => {
  for (const key of ['', 'x'.repeat(256), 'with space', 'tab\there']) {
    const reply = await createWorkspace(owner, key, { key: 'never-made', name: 'x' });
    expect([JSON.stringify(key), reply.status, reply.body.errors?.[0]?.loc]).toEqual([JSON.stringify(key), 422, ['header', 'Idempotency-Key']]);
  }
  expect(await workspaceCount(owner.orgKey, 'never-made')).toBe(0);
  const key = newKey();
  const body = { key: `ws-${key.slice(0, 8)}`, name: 'Expires' };
  expect((await createWorkspace(owner, key, body)).status).toBe(201);
  await database().query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $key`, { bind: { key } });
  const afresh = await createWorkspace(owner, key, body);
  expect([afresh.status, afresh.headers.get('idempotent-replayed')]).toEqual([409, null]);

  const signupKey = newKey();
  for (const name of ['a', 'b']) {
    const username = `idem${name}${crypto.randomBytes(3).toString('hex')}`;
    const signup = await rest(api, 'POST', '/auth/signup', {
      body: { email: `${username}@example.test`, username, password: 'a long enough password', accept_terms: true },
      headers: { 'Idempotency-Key': signupKey },
    });
    expect([name, signup.status]).toEqual([name, 201]);
  }
});

it('keeps a server error (the request may have written), gives the key back after a 429, and takes over a key whose request died', async () => {
  const ctx = { viewer: { user: { id: owner.id }, apiKey: null } } as never;
  const failed = newKey();
  const claim = await claimKey(ctx, failed, 'fingerprint');
  expect(claim?.kind).toBe('claimed');
  expect((await claimKey(ctx, failed, 'fingerprint'))?.kind).toBe('refused');
  await settleKey(claim as { credential: string; key: string }, { status: 500, headers: {}, body: '{"code":500}' }, false);
  expect(await claimKey(ctx, failed, 'fingerprint')).toEqual({ kind: 'replay', reply: { status: 500, headers: {}, body: '{"code":500}' } });

  const limited = newKey();
  const first = await claimKey(ctx, limited, 'fingerprint');
  await settleKey(first as { credential: string; key: string }, { status: 429, headers: {}, body: '{}' }, false);
  expect((await claimKey(ctx, limited, 'fingerprint'))?.kind).toBe('claimed');

  const orphan = newKey();
  expect((await claimKey(ctx, orphan, 'fingerprint'))?.kind).toBe('claimed');
  await database().query(`UPDATE idempotency_keys SET created_at = now() - interval '6 minutes' WHERE key = $key`, { bind: { key: orphan } });
  expect((await claimKey(ctx, orphan, 'fingerprint'))?.kind).toBe('claimed');
});

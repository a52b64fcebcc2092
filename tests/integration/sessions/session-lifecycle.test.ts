import crypto from 'node:crypto';
import { createOrgWithRoles, createUser } from '../../factories/accounts';
import { appendMessages, createGroup, saveSession, sessionsPath } from '../../factories/sessions';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let path: string;

beforeAll(async () => {
  roles = await createOrgWithRoles();
  path = sessionsPath(roles.orgKey);
});

/** A UUID starting with `prefix` (hex). */
function idWithPrefix(prefix: string): string {
  const random = crypto.randomUUID().replace(/-/g, '');
  const hex = (prefix + random).slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

describe('session references', () => {
  it('gets a session by full id in any case and by a unique prefix of 4+ characters', async () => {
    const session = await saveSession(api, roles.contributor, { id: idWithPrefix(crypto.randomBytes(4).toString('hex')) }, { orgKey: roles.orgKey });
    for (const ref of [session.id, session.id.toUpperCase(), session.id.slice(0, 4), session.id.slice(0, 13)]) {
      const res = await rest(api, 'GET', `${path}/${ref}`, { token: roles.contributor.token });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(session.id);
    }
  });

  it('rejects a prefix shorter than 4 characters with 422 string_too_short at the path', async () => {
    const res = await rest(api, 'GET', `${path}/abc`, { token: roles.contributor.token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['path', 'session_id'], type: 'string_too_short' })]);
    const unarchive = await rest(api, 'POST', `${path}/abc/unarchive`, { token: roles.contributor.token });
    expect(unarchive.status).toBe(422);
    expect(unarchive.body.errors[0].loc).toEqual(['path', 'session_id']);
  });

  it('answers 409 conflict_error for a prefix shared by several visible sessions', async () => {
    const prefix = crypto.randomBytes(3).toString('hex');
    await saveSession(api, roles.contributor, { id: idWithPrefix(`${prefix}1`) }, { orgKey: roles.orgKey });
    await saveSession(api, roles.contributor, { id: idWithPrefix(`${prefix}2`) }, { orgKey: roles.orgKey });
    const res = await rest(api, 'POST', `${path}/${prefix}/unarchive`, { token: roles.contributor.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
  });

  it("does not count sessions the caller cannot see: a prefix matching another user's private session is unique or 404", async () => {
    const prefix = crypto.randomBytes(3).toString('hex');
    const mine = await saveSession(api, roles.contributor, { id: idWithPrefix(`${prefix}1`) }, { orgKey: roles.orgKey });
    await saveSession(api, roles.owner, { id: idWithPrefix(`${prefix}2`) }, { orgKey: roles.orgKey });
    const res = await rest(api, 'GET', `${path}/${prefix}`, { token: roles.contributor.token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(mine.id);
    const hidden = await rest(api, 'GET', `${path}/${prefix}2`, { token: roles.contributor.token });
    expect(hidden.status).toBe(404);
  });

  it('answers 404 for an unknown id, a non-hex reference and a session of another tenant', async () => {
    const stranger = await createUser();
    const foreign = await saveSession(api, stranger);
    for (const ref of [crypto.randomUUID(), 'zzzzzz', foreign.id]) {
      const res = await rest(api, 'GET', `${path}/${ref}`, { token: roles.contributor.token });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('not_found_error');
    }
  });
});

describe('archive and unarchive', () => {
  it('archives and unarchives idempotently, returning the full session', async () => {
    const session = await saveSession(api, roles.contributor, {}, { orgKey: roles.orgKey });
    const first = await rest(api, 'POST', `${path}/${session.id}/archive`, { token: roles.contributor.token });
    expect(first.status).toBe(200);
    expect(first.body.archived_at).not.toBeNull();
    const second = await rest(api, 'POST', `${path}/${session.id}/archive`, { token: roles.contributor.token });
    expect(second.status).toBe(200);
    expect(second.body.archived_at).toBe(first.body.archived_at);

    const active = await rest(api, 'GET', path, { token: roles.contributor.token, query: { limit: 100 } });
    expect(active.body.sessions.map((row: { id: string }) => row.id)).not.toContain(session.id);

    const restored = await rest(api, 'POST', `${path}/${session.id.slice(0, 8)}/unarchive`, { token: roles.contributor.token });
    expect(restored.status).toBe(200);
    expect(restored.body.archived_at).toBeNull();
    expect(restored.body.usage).toBeDefined();
    const again = await rest(api, 'POST', `${path}/${session.id}/unarchive`, { token: roles.contributor.token });
    expect(again.status).toBe(200);
    expect(again.body.archived_at).toBeNull();
  });

  it("lets a writer unarchive a visible shared session of someone else, but not a reader", async () => {
    const shared = await saveSession(api, roles.owner, { visibility: 'workspace' }, { orgKey: roles.orgKey });
    await rest(api, 'POST', `${path}/${shared.id}/archive`, { token: roles.owner.token });
    const reader = await rest(api, 'POST', `${path}/${shared.id}/unarchive`, { token: roles.reader.token });
    expect(reader.status).toBe(403);
    const contributor = await rest(api, 'POST', `${path}/${shared.id}/unarchive`, { token: roles.contributor.token });
    expect(contributor.status).toBe(200);
    expect(contributor.body.archived_at).toBeNull();
  });

  it('unarchives through GraphQL', async () => {
    const session = await saveSession(api, roles.contributor, {}, { orgKey: roles.orgKey });
    const target = { org: roles.orgKey, workspace: 'default' };
    const archived = await runOperation(api, 'ArchiveSession', { ...target, session_id: session.id }, roles.contributor.token);
    expect(archived.body.data.archive_session.archived_at).not.toBeNull();
    const res = await runOperation(api, 'UnarchiveSession', { ...target, session_id: session.id.slice(0, 6) }, roles.contributor.token);
    expect(res.body.data.unarchive_session).toEqual({ id: session.id, archived_at: null });
    const short = await gql(
      api,
      'mutation($o: String!) { unarchive_session(org: $o, workspace: "default", session_id: "ab") { id } }',
      { o: roles.orgKey },
      roles.contributor.token,
    );
    expect(short.body.errors?.[0].extensions).toMatchObject({ type: 'validation_error', errors: [expect.objectContaining({ loc: ['session_id'], type: 'string_too_short' })] });
  });
});

describe('patch, freeze and delete', () => {
  it('updates fields, replaces labels and shares a session', async () => {
    const session = await saveSession(api, roles.contributor, { labels: { env: ['prod'], team: ['a'] }, title: 'Old' }, { orgKey: roles.orgKey });
    const res = await rest(api, 'PATCH', `${path}/${session.id}`, {
      token: roles.contributor.token,
      body: { title: 'New', labels: { tier: ['gold'] }, visibility: 'workspace', message_count: 9 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'New', labels: { tier: ['gold'] }, visibility: 'workspace', message_count: 9, model: 'model-a' });
    expect(res.body.shared_by.id).toBe(roles.contributor.id);
  });

  it('refuses to make a shared session private again with 403', async () => {
    const session = await saveSession(api, roles.contributor, { visibility: 'workspace' }, { orgKey: roles.orgKey });
    const res = await rest(api, 'PATCH', `${path}/${session.id}`, { token: roles.contributor.token, body: { visibility: 'private' } });
    expect(res.status).toBe(403);
    const save = await rest(api, 'POST', path, { token: roles.contributor.token, body: { id: session.id, model: 'm', visibility: 'private' } });
    expect(save.status).toBe(403);
  });

  it("rejects a patch of someone else's shared session with 403 and bad labels with 422", async () => {
    const shared = await saveSession(api, roles.owner, { visibility: 'workspace' }, { orgKey: roles.orgKey });
    const res = await rest(api, 'PATCH', `${path}/${shared.id}`, { token: roles.contributor.token, body: { title: 'x' } });
    expect(res.status).toBe(403);
    const bad = await rest(api, 'PATCH', `${path}/${shared.id}`, { token: roles.owner.token, body: { labels: { env: 'prod' }, title: 'x'.repeat(256) } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'title'], type: 'string_too_long' })]);
    const labels = await rest(api, 'PATCH', `${path}/${shared.id}`, { token: roles.owner.token, body: { labels: { env: 'prod' } } });
    expect(labels.status).toBe(422);
    expect(labels.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'labels', 'env'], type: 'list_type' })]);
  });

  it('freezes a session: frozen_at and frozen_by user, then transcript writes answer 409', async () => {
    const session = await saveSession(api, roles.contributor, {}, { orgKey: roles.orgKey });
    const res = await rest(api, 'POST', `${path}/${session.id}/freeze`, { token: roles.contributor.token });
    expect(res.status).toBe(200);
    expect(res.body.frozen_by).toBe('user');
    expect(res.body.frozen_at).not.toBeNull();
    const again = await rest(api, 'POST', `${path}/${session.id}/freeze`, { token: roles.contributor.token });
    expect(again.body.frozen_at).toBe(res.body.frozen_at);
    const append = await rest(api, 'POST', `${path}/${session.id}/transcript`, {
      token: roles.contributor.token,
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(append.status).toBe(409);
    expect(append.body.type).toBe('conflict_error');
    const compact = await rest(api, 'POST', `${path}/${session.id}/transcript/compact`, {
      token: roles.contributor.token,
      body: { up_to_seq: 1, summary: { role: 'system', content: 's' } },
    });
    expect(compact.status).toBe(409);
  });

  it('deletes a session with a JSON reply, then answers 404', async () => {
    const session = await saveSession(api, roles.contributor, {}, { orgKey: roles.orgKey });
    await appendMessages(api, roles.contributor, session.id, [{ role: 'user', content: 'bye' }], { orgKey: roles.orgKey });
    const res = await rest(api, 'DELETE', `${path}/${session.id}`, { token: roles.contributor.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: session.id, deleted: true });
    expect((await rest(api, 'GET', `${path}/${session.id}`, { token: roles.contributor.token })).status).toBe(404);
  });

  it('refuses to delete a session of an evaluation item group with 409, and a reader with 403', async () => {
    const group = await createGroup(api, roles.owner, { kind: 'evaluation_item' });
    const session = await saveSession(api, roles.contributor, { group_id: group.id, origin: 'eval' }, { orgKey: roles.orgKey });
    const res = await rest(api, 'DELETE', `${path}/${session.id}`, { token: roles.contributor.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('conflict_error');
    // Nor moved out of the group first (which would get round the 409): saved with another group or none, 409 too.
    const other = await createGroup(api, roles.owner, { kind: 'worker_run' });
    for (const group_id of [null, other.id]) {
      const moved = await rest(api, 'POST', path, { token: roles.contributor.token, body: { id: session.id, model: 'm', group_id } });
      expect([moved.status, moved.body.detail]).toEqual([409, 'The session belongs to an evaluation item and cannot be moved out of its group']);
    }
    // Saved again in its own group, or without naming one, it is an ordinary save.
    for (const body of [{ group_id: group.id }, {}]) expect((await rest(api, 'POST', path, { token: roles.contributor.token, body: { id: session.id, model: 'm2', ...body } })).status).toBe(200);
    expect((await rest(api, 'DELETE', `${path}/${session.id}`, { token: roles.contributor.token })).status).toBe(409);
    const shared = await saveSession(api, roles.owner, { visibility: 'workspace' }, { orgKey: roles.orgKey });
    expect((await rest(api, 'DELETE', `${path}/${shared.id}`, { token: roles.reader.token })).status).toBe(403);
  });
});

describe('session writes through GraphQL', () => {
  it('patches, freezes and deletes a session, reporting errors in extensions', async () => {
    const session = await saveSession(api, roles.contributor, {}, { orgKey: roles.orgKey });
    const vars = { org: roles.orgKey, workspace: 'default', session_id: session.id };
    const patched = await runOperation(api, 'UpdateSession', { ...vars, input: { title: 'GraphQL title', labels: { env: ['qa'] } } }, roles.contributor.token);
    expect(patched.body.data.update_session).toMatchObject({ id: session.id, title: 'GraphQL title', labels: { env: ['qa'] } });
    const frozen = await runOperation(api, 'FreezeSession', vars, roles.contributor.token);
    expect(frozen.body.data.freeze_session).toMatchObject({ id: session.id, frozen_by: 'user' });
    const append = await runOperation(api, 'AppendSessionTranscript', { ...vars, input: { messages: [{ role: 'user', content: 'x' }] } }, roles.contributor.token);
    expect(append.body.errors?.[0].extensions).toMatchObject({ type: 'conflict_error', status: 409 });
    const hidden = await runOperation(api, 'DeleteSession', vars, roles.reader.token);
    expect(hidden.body.errors?.[0].extensions).toMatchObject({ status: 404 });
    const deleted = await runOperation(api, 'DeleteSession', vars, roles.contributor.token);
    expect(deleted.body.data.delete_session).toEqual({ id: session.id, deleted: true });
  });

  it("hides every session route from a non-member with 404", async () => {
    const session = await saveSession(api, roles.contributor, { visibility: 'workspace' }, { orgKey: roles.orgKey });
    const token = roles.outsider.token;
    const calls: [string, string, unknown][] = [
      ['GET', `${path}/${session.id}`, undefined],
      ['PATCH', `${path}/${session.id}`, { title: 'x' }],
      ['DELETE', `${path}/${session.id}`, undefined],
      ['POST', `${path}/${session.id}/archive`, undefined],
      ['POST', `${path}/${session.id}/freeze`, undefined],
      ['GET', `${path}/${session.id}/transcript`, undefined],
      ['POST', `${path}/${session.id}/transcript`, { messages: [{ role: 'user', content: 'x' }] }],
      ['POST', `${path}/${session.id}/transcript/compact`, { up_to_seq: 1, summary: { role: 'system', content: 's' } }],
      ['GET', path, undefined],
      ['GET', `${path}/facets`, undefined],
    ];
    for (const [method, url, body] of calls) {
      const res = await rest(api, method, url, { token, body });
      expect([method, url, res.status]).toEqual([method, url, 404]);
    }
  });
});

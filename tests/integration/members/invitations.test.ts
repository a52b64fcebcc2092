import { InvitationModel, MembershipModel, OrganizationModel, UserModel } from '../../../models';
import { config, overrideConfig } from '../../../src/config/config';
import { addMember, createOrgWithRoles, createUser, randomKey, type TestUser } from '../../factories/accounts';
import { invite, inviteAndAccept } from '../../factories/invitations';
import { MIN_PENDING_INVITATIONS } from '../../../src/modules/members/invitations.service';
import { WITHDRAW_ORPHANED_SQL } from '../../../migrations/0070-orphaned-invitations';
import { outboxOf } from '../../factories/mail';
import { gql, rest, type HttpResult } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

/**
 * Adding a member is an invitation the invitee accepts (decisions.md §3):
 * `POST ORG/members` answers 202 whatever the address, and only the account
 * with the invited address can accept or decline it.
 */
const api = useTestApp();

let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let outsider: TestUser;
let orgKey: string;

beforeAll(async () => {
  ({ owner, contributor, reader, outsider, orgKey } = await createOrgWithRoles());
});

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

async function orgRow(key: string): Promise<OrganizationModel> {
  return (await OrganizationModel.findOne({ where: { key } }))!;
}

/** An organization with a member limit of 2 (so it may hold MIN_PENDING_INVITATIONS pending), its owner and a way to invite readers. */
async function smallOrg(): Promise<{ boss: TestUser; org: string; row: OrganizationModel; invite: (email: string) => Promise<HttpResult> }> {
  const { owner: boss, orgKey: org } = await createOrgWithRoles();
  const row = await orgRow(org);
  row.max_members = 2;
  await row.save();
  return { boss, org, row, invite: (email) => rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'reader' } }) };
}

async function memberIds(key: string): Promise<string[]> {
  const org = await orgRow(key);
  return (await MembershipModel.findAll({ where: { organization_id: org.id } })).map((row) => row.user_id);
}

async function withVerificationRequired<T>(run: () => Promise<T>): Promise<T> {
  const previous = config();
  overrideConfig({ REQUIRE_EMAIL_VERIFICATION: true });
  try {
    return await run();
  } finally {
    overrideConfig(previous);
  }
}

describe('POST ORG/members (invite)', () => {
  it('invites an address with an account with 202 and no user id or profile, without adding it, and mails the address', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const newcomer = await createUser({ full_name: 'New Comer' });
    const before = Date.now();
    const res = await rest(api, 'POST', `/org/${org}/members`, {
      token: boss.token,
      body: { email: newcomer.email.toUpperCase(), role: 'contributor' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'invited', email: newcomer.email.toLowerCase(), role: 'contributor', expires_at: expect.any(String) });
    const expiresIn = new Date(res.body.expires_at).getTime() - before;
    expect(expiresIn).toBeGreaterThan(SEVEN_DAYS_MS - 60_000);
    expect(expiresIn).toBeLessThan(SEVEN_DAYS_MS + 60_000);
    expect(res.text).not.toContain(newcomer.id);
    expect(res.text).not.toMatch(/user_id|username|full_name/);
    expect(res.text).not.toContain('New Comer');
    expect(await memberIds(org)).not.toContain(newcomer.id);
    expect((await rest(api, 'GET', `/org/${org}/members`, { token: newcomer.token })).status).toBe(404);
    const [mail] = await outboxOf(newcomer.email.toLowerCase());
    expect(mail).toMatchObject({ kind: 'member_invitation' });
    expect(mail.body_text).toContain(org);
    expect(mail.body_text).toContain('contributor');
  });

  it('answers an address without an account exactly as one with an account, and mails it the same text', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const known = await createUser();
    const unknown = `${randomKey('nobody')}@example.test`;
    const replies = [];
    for (const email of [known.email, unknown]) {
      const res = await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'reader' } });
      replies.push(res);
    }
    expect(replies.map((res) => res.status)).toEqual([202, 202]);
    expect(replies[1].body).toMatchObject({ status: 'invited', email: unknown, role: 'reader' });
    // The same reply but for the address and the expiry.
    const [withAccount, withoutAccount] = replies.map((res) => ({ ...res.body, email: 'ADDRESS', expires_at: 'WHEN' }));
    expect(withoutAccount).toEqual(withAccount);
    expect(replies[0].text).not.toContain(known.id);
    const mails = [(await outboxOf(known.email))[0], (await outboxOf(unknown))[0]];
    // The same text but for the invitation's id and expiry.
    const masked = mails.map((mail) => mail.body_text.replace(/[0-9a-f-]{36}/g, 'ID').replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, 'WHEN'));
    expect(masked[0]).toBe(masked[1]);
    expect(mails.map((mail) => mail.subject)).toEqual([mails[0].subject, mails[0].subject]);
  });

  it('answers 409 already_exists_error for the address of a member, whatever its case', async () => {
    const res = await rest(api, 'POST', `/org/${orgKey}/members`, { token: owner.token, body: { email: reader.email.toUpperCase(), role: 'reader' } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('rejects bad input with 422 and exact locations', async () => {
    const res = await rest(api, 'POST', `/org/${orgKey}/members`, { token: owner.token, body: { email: 'not-an-email', role: 'admin' } });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        [['body', 'role'], 'enum'],
        [['body', 'email'], 'value_error'],
      ]),
    );
  });

  it('reports missing fields as missing', async () => {
    const res = await rest(api, 'POST', `/org/${orgKey}/members`, { token: owner.token, body: {} });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'email'], type: 'missing' }),
        expect.objectContaining({ loc: ['body', 'role'], type: 'missing' }),
      ]),
    );
  });

  it("rejects a contributor's and a reader's invitation with 403 and sends nothing", async () => {
    const email = `${randomKey('denied')}@example.test`;
    for (const user of [contributor, reader]) {
      const res = await rest(api, 'POST', `/org/${orgKey}/members`, { token: user.token, body: { email, role: 'reader' } });
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('forbidden_error');
    }
    expect(await outboxOf(email)).toEqual([]);
    expect(await InvitationModel.count({ where: { email } })).toBe(0);
  });

  it("hides another organization from a non-member's invitation with 404", async () => {
    const res = await rest(api, 'POST', `/org/${orgKey}/members`, { token: outsider.token, body: { email: outsider.email, role: 'owner' } });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('refreshes the pending invitation when the same address is invited again', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const email = `${randomKey('again')}@example.test`;
    const first = await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'reader' } });
    const listedFirst = await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token });
    const second = await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email: email.toUpperCase(), role: 'contributor' } });
    expect(second.status).toBe(202);
    expect(new Date(second.body.expires_at).getTime()).toBeGreaterThan(new Date(first.body.expires_at).getTime());
    const listed = await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token });
    expect(listed.body).toEqual([{ ...listedFirst.body[0], role: 'contributor', expires_at: second.body.expires_at }]);
    // Mailed once: a refresh within INVITATION_REMAIL_AFTER_MS of the last mail sends none (no mail relay).
    expect(await outboxOf(email)).toHaveLength(1);
    await InvitationModel.sequelize!.query("UPDATE invitations SET mailed_at = now() - interval '11 minutes' WHERE email = $1", { bind: [email.toLowerCase()] });
    expect((await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'contributor' } })).status).toBe(202);
    expect(await outboxOf(email)).toHaveLength(2);
  });

  it('holds at most as many pending invitations as the member limit (at least MIN_PENDING_INVITATIONS): one more is 409, a refresh still passes', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const row = await orgRow(org);
    row.max_members = 2;
    await row.save();
    const addresses = Array.from({ length: MIN_PENDING_INVITATIONS + 1 }, () => `${randomKey('cap')}@example.test`);
    for (const email of addresses.slice(0, MIN_PENDING_INVITATIONS)) expect((await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'reader' } })).status).toBe(202);
    const over = await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email: addresses[MIN_PENDING_INVITATIONS], role: 'reader' } });
    expect(over.status).toBe(409);
    expect(over.body.type).toBe('conflict_error');
    expect(await outboxOf(addresses[MIN_PENDING_INVITATIONS])).toHaveLength(0);
    expect((await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email: addresses[0], role: 'contributor' } })).status).toBe(202);
  });

  it('replaces an expired invitation invited again by a new one, under the cap and the hourly limit: expired ones saved up do not all come back', async () => {
    const { boss, org, row, invite } = await smallOrg();
    const old = Array.from({ length: MIN_PENDING_INVITATIONS }, () => `${randomKey('old')}@example.test`);
    for (const email of old) expect((await invite(email)).status).toBe(202);
    // A week and a day later: all expired, made (and mailed) long ago.
    await InvitationModel.sequelize!.query(
      "UPDATE invitations SET expires_at = now() - interval '1 day', created_at = now() - interval '8 days', mailed_at = now() - interval '8 days' WHERE organization_id = $1",
      { bind: [row.id] },
    );
    const fresh = Array.from({ length: MIN_PENDING_INVITATIONS }, () => `${randomKey('new')}@example.test`);
    for (const email of fresh) expect((await invite(email)).status).toBe(202);
    // The cap is full: an expired one invited again is a new invitation, 409 as any other, and mails nothing.
    const revived = await invite(old[0]);
    expect([revived.status, revived.body.type]).toEqual([409, 'conflict_error']);
    expect(await outboxOf(old[0])).toHaveLength(1);
    const listed = (await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token, query: { limit: 100 } })).body as { email: string }[];
    expect(listed.map((item) => item.email).sort()).toEqual([...fresh].sort());
    // Room made by revoking: the hourly limit holds (the hour's MIN_PENDING_INVITATIONS are made already).
    for (const { id } of (await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token, query: { limit: 100 } })).body as { id: string }[]) {
      expect((await rest(api, 'DELETE', `/org/${org}/invitations/${id}`, { token: boss.token })).status).toBe(200);
    }
    const limited = await invite(old[1]);
    expect([limited.status, limited.body.type]).toEqual([429, 'usage_limit_exceeded_error']);
    expect(await outboxOf(old[1])).toHaveLength(1);
    // An hour on, it is made again as a new invitation: a new id, made now, seven days to answer.
    await InvitationModel.sequelize!.query("UPDATE invitations SET created_at = created_at - interval '61 minutes' WHERE organization_id = $1", { bind: [row.id] });
    const before = await InvitationModel.findOne({ where: { organization_id: row.id, email: old[1], status: 'pending' } });
    const again = await invite(old[1]);
    expect(again.status).toBe(202);
    const after = await InvitationModel.findOne({ where: { organization_id: row.id, email: old[1], status: 'pending' } });
    expect(after!.id).not.toBe(before!.id);
    expect(Date.now() - after!.created_at.getTime()).toBeLessThan(60_000);
    expect(after!.expires_at.getTime() - Date.now()).toBeGreaterThan(SEVEN_DAYS_MS - 60_000);
    expect(await outboxOf(old[1])).toHaveLength(2);
  });

  it('mails an address once in 10 minutes however its invitations end (revoked, declined) and are made again, counted from the last mail', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const email = `${randomKey('cycle')}@example.test`;
    for (let round = 0; round < 3; round += 1) {
      expect((await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'reader' } })).status).toBe(202);
      const [pending] = (await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token })).body;
      expect((await rest(api, 'DELETE', `/org/${org}/invitations/${pending.id}`, { token: boss.token })).status).toBe(200);
    }
    expect(await outboxOf(email)).toHaveLength(1);
    // Once the last mail is over 10 minutes old, a new invitation is mailed, though the revocation was just now (it mailed nothing).
    await InvitationModel.sequelize!.query("UPDATE invitations SET mailed_at = now() - interval '11 minutes' WHERE email = $1 AND mailed_at IS NOT NULL", { bind: [email] });
    expect((await rest(api, 'POST', `/org/${org}/members`, { token: boss.token, body: { email, role: 'reader' } })).status).toBe(202);
    expect(await outboxOf(email)).toHaveLength(2);
  });

  it('makes at most as many new invitations an hour as it may hold pending: revoking to make room is 429 past it', async () => {
    const { boss, org, invite } = await smallOrg();
    for (let index = 0; index < MIN_PENDING_INVITATIONS; index += 1) expect((await invite(`${randomKey('hour')}@example.test`)).status).toBe(202);
    const pending = (await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token, query: { limit: 100 } })).body as { id: string }[];
    for (const { id } of pending) expect((await rest(api, 'DELETE', `/org/${org}/invitations/${id}`, { token: boss.token })).status).toBe(200);
    const fresh = `${randomKey('hour')}@example.test`;
    const over = await invite(fresh);
    expect([over.status, over.body.type]).toEqual([429, 'usage_limit_exceeded_error']);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(await outboxOf(fresh)).toHaveLength(0);
    // Retry-After counts to when the oldest of the hour's invitations ages out (59 minutes old: about a minute).
    await InvitationModel.sequelize!.query(
      "UPDATE invitations SET created_at = now() - interval '59 minutes' WHERE id = (SELECT id FROM invitations WHERE organization_id = (SELECT id FROM organizations WHERE key = $1) ORDER BY created_at LIMIT 1)",
      { bind: [org] },
    );
    const soon = await invite(fresh);
    expect(soon.status).toBe(429);
    expect(Number(soon.headers.get('retry-after'))).toBeLessThanOrEqual(61);
    // An hour later (the oldest invitation made over an hour ago), one more may be made.
    await InvitationModel.sequelize!.query(
      "UPDATE invitations SET created_at = now() - interval '61 minutes' WHERE id = (SELECT id FROM invitations WHERE organization_id = (SELECT id FROM organizations WHERE key = $1) ORDER BY created_at LIMIT 1)",
      { bind: [org] },
    );
    expect((await invite(fresh)).status).toBe(202);
    expect((await invite(`${randomKey('hour')}@example.test`)).status).toBe(429);
  });

  it('invites through GraphQL', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const res = await runOperation(api, 'InviteMember', { org: boss.orgKey, input: { email: friend.email, role: 'reader' } }, boss.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.invite_member).toEqual({ status: 'invited', email: friend.email, role: 'reader', expires_at: expect.any(String) });
  });

  it('reports a GraphQL role outside the enum as a validation error', async () => {
    const res = await gql(
      api,
      'mutation($org: String!, $input: InviteMemberInput!) { invite_member(org: $org, input: $input) { status } }',
      { org: orgKey, input: { email: 'someone@example.test', role: 'admin' } },
      owner.token,
    );
    expect(res.body.errors?.[0].extensions.type).toBe('validation_error');
  });
});

describe('GET ORG/invitations', () => {
  it('lists the pending invitations for the owner, not answered, revoked or expired ones', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const [pending, accepted, declined, revoked, expired] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser()));
    const pendingId = await invite(api, boss, org, pending, 'contributor');
    await inviteAndAccept(api, boss, org, accepted, 'reader');
    expect((await rest(api, 'POST', `/user/invitations/${await invite(api, boss, org, declined, 'reader')}/decline`, { token: declined.token })).status).toBe(200);
    expect((await rest(api, 'DELETE', `/org/${org}/invitations/${await invite(api, boss, org, revoked, 'reader')}`, { token: boss.token })).status).toBe(200);
    await InvitationModel.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: await invite(api, boss, org, expired, 'reader') } });
    const res = await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: pendingId,
        email: pending.email,
        role: 'contributor',
        invited_by: { username: boss.username },
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
  });

  it('pages with page and limit, oldest first, for the owner and the invitee alike', async () => {
    const boss = await createUser();
    const other = await createUser();
    const friend = await createUser();
    const emails = [`${randomKey('p1')}@example.test`, `${randomKey('p2')}@example.test`, `${randomKey('p3')}@example.test`];
    for (const email of emails) expect((await rest(api, 'POST', `/org/${boss.orgKey}/members`, { token: boss.token, body: { email, role: 'reader' } })).status).toBe(202);
    const second = await rest(api, 'GET', `/org/${boss.orgKey}/invitations`, { token: boss.token, query: { page: 2, limit: 1 } });
    expect(second.body.map((item: { email: string }) => item.email)).toEqual([emails[1]]);
    await invite(api, boss, boss.orgKey, friend, 'reader');
    await invite(api, other, other.orgKey, friend, 'reader');
    const mine = await rest(api, 'GET', '/user/invitations', { token: friend.token, query: { page: 2, limit: 1 } });
    expect(mine.body.map((item: { org_key: string }) => item.org_key)).toEqual([other.orgKey]);
  });

  it("rejects a contributor's and a reader's listing with 403", async () => {
    for (const user of [contributor, reader]) {
      const res = await rest(api, 'GET', `/org/${orgKey}/invitations`, { token: user.token });
      expect(res.status).toBe(403);
    }
  });

  it('lists through GraphQL', async () => {
    const boss = await createUser();
    const friend = await createUser();
    await invite(api, boss, boss.orgKey, friend, 'reader');
    const res = await runOperation(api, 'OrgInvitations', { org: boss.orgKey }, boss.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.org_invitations).toEqual([expect.objectContaining({ email: friend.email, role: 'reader', invited_by: { username: boss.username } })]);
  });
});

describe('DELETE ORG/invitations/{id}', () => {
  it('lets the owner revoke a pending invitation, which the invitee can then neither see nor accept', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    const res = await rest(api, 'DELETE', `/org/${boss.orgKey}/invitations/${id}`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, status: 'revoked' });
    expect((await rest(api, 'GET', '/user/invitations', { token: friend.token })).body).toEqual([]);
    const accept = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token });
    expect(accept.status).toBe(404);
    expect(await memberIds(boss.orgKey)).not.toContain(friend.id);
    const again = await rest(api, 'DELETE', `/org/${boss.orgKey}/invitations/${id}`, { token: boss.token });
    expect(again.status).toBe(404);
  });

  it("rejects a reader's revocation with 403 and hides the invitation from other organizations with 404", async () => {
    const invitee = await createUser();
    const id = await invite(api, owner, orgKey, invitee, 'reader');
    const byReader = await rest(api, 'DELETE', `/org/${orgKey}/invitations/${id}`, { token: reader.token });
    expect(byReader.status).toBe(403);
    const byOutsider = await rest(api, 'DELETE', `/org/${orgKey}/invitations/${id}`, { token: outsider.token });
    expect(byOutsider.status).toBe(404);
    const underOwnOrg = await rest(api, 'DELETE', `/org/${outsider.orgKey}/invitations/${id}`, { token: outsider.token });
    expect(underOwnOrg.status).toBe(404);
    expect((await rest(api, 'GET', '/user/invitations', { token: invitee.token })).body.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it('lets exactly one of a revocation and an acceptance racing on one invitation win', async () => {
    const boss = await createUser();
    const org = await orgRow(boss.orgKey);
    for (let round = 0; round < 5; round += 1) {
      const friend = await createUser();
      const id = await invite(api, boss, boss.orgKey, friend, 'reader');
      const [revoked, accepted] = await Promise.all([
        rest(api, 'DELETE', `/org/${boss.orgKey}/invitations/${id}`, { token: boss.token }),
        rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token }),
      ]);
      expect([revoked.status, accepted.status].sort()).toEqual(accepted.status === 201 ? [201, 404] : [200, 404]);
      const member = await MembershipModel.count({ where: { organization_id: org.id, user_id: friend.id } });
      expect((await InvitationModel.findByPk(id))!.status).toBe(member ? 'accepted' : 'revoked');
    }
  });

  it('revokes through GraphQL', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    const res = await runOperation(api, 'RevokeInvitation', { org: boss.orgKey, id }, boss.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.revoke_invitation).toEqual({ id, status: 'revoked' });
  });
});

describe('invitations of an owner who stops being one', () => {
  it('withdraws the pending invitations of an owner removed, leaving or demoted, and no other', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const [second, third, fourth] = [await createUser(), await createUser(), await createUser()];
    await addMember(org, second, 'owner');
    await addMember(org, third, 'owner');
    await addMember(org, fourth, 'owner');
    const [back, friend, mate, kept] = [await createUser(), await createUser(), await createUser(), await createUser()];
    // Each about-to-go owner invites someone as owner (for `back`, another account of their own).
    const byRemoved = await invite(api, second, org, back, 'owner');
    const byDemoted = await invite(api, third, org, friend, 'owner');
    const byLeaver = await invite(api, fourth, org, mate, 'reader');
    const byBoss = await invite(api, boss, org, kept, 'reader');
    expect((await rest(api, 'DELETE', `/org/${org}/members/${second.id}`, { token: boss.token })).status).toBe(200);
    expect((await rest(api, 'PATCH', `/org/${org}/members/${third.id}`, { token: boss.token, body: { role: 'contributor' } })).status).toBe(200);
    expect((await rest(api, 'DELETE', `/org/${org}/members/${fourth.id}`, { token: fourth.token })).status).toBe(200);
    for (const [user, id] of [[back, byRemoved], [friend, byDemoted], [mate, byLeaver]] as const) {
      expect((await rest(api, 'GET', '/user/invitations', { token: user.token })).body).toEqual([]);
      expect((await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: user.token })).status).toBe(404);
      expect(await InvitationModel.findByPk(id)).toMatchObject({ status: 'revoked', responded_at: expect.any(Date) });
    }
    expect(await InvitationModel.findByPk(byBoss)).toMatchObject({ status: 'pending' });
    expect((await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token })).body.map((item: { id: string }) => item.id)).toEqual([byBoss]);
  });

  it('withdraws, once, the pending invitations of owners removed or demoted before (migration 0070)', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const [gone, demoted, friend, mate, kept] = [await createUser(), await createUser(), await createUser(), await createUser(), await createUser()];
    await addMember(org, gone, 'owner');
    await addMember(org, demoted, 'owner');
    const orphan = await invite(api, gone, org, friend, 'owner');
    const stale = await invite(api, demoted, org, mate, 'owner');
    const fine = await invite(api, boss, org, kept, 'reader');
    // As the code before this change left them: the membership changed, the invitations pending.
    const organization = await orgRow(org);
    await MembershipModel.destroy({ where: { organization_id: organization.id, user_id: gone.id } });
    await MembershipModel.update({ role: 'reader' }, { where: { organization_id: organization.id, user_id: demoted.id } });
    await InvitationModel.sequelize!.query(WITHDRAW_ORPHANED_SQL);
    expect((await InvitationModel.findAll({ where: { id: [orphan, stale, fine] }, order: [['created_at', 'ASC']] })).map((row) => [row.id, row.status])).toEqual([
      [orphan, 'revoked'],
      [stale, 'revoked'],
      [fine, 'pending'],
    ]);
  });
});

describe('GET /api/v1/user/invitations', () => {
  it("lists the caller's pending invitations as a bare array, none of another address's", async () => {
    const boss = await createUser({ full_name: 'Boss Lady' });
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'contributor');
    const res = await rest(api, 'GET', '/user/invitations', { token: friend.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id,
        org_key: boss.orgKey,
        org_name: 'Boss Lady',
        role: 'contributor',
        invited_by: { username: boss.username },
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    expect((await rest(api, 'GET', '/user/invitations', { token: outsider.token })).body).toEqual([]);
  });

  it('lists nothing to a key limited to an organization (it sees no other)', async () => {
    const boss = await createUser();
    const friend = await createUser();
    await invite(api, boss, boss.orgKey, friend, 'reader');
    const org = await orgRow(friend.orgKey);
    const key = await rest(api, 'POST', '/user/api-keys', { token: friend.token, body: { name: 'limited', org_id: org.id } });
    expect(key.status).toBe(201);
    const res = await rest(api, 'GET', '/user/invitations', { headers: { 'x-api-key': key.body.key } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('lists through GraphQL', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    const res = await runOperation(api, 'UserInvitations', {}, friend.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.user_invitations).toEqual([expect.objectContaining({ id, org_key: boss.orgKey, invited_by: { username: boss.username } })]);
  });
});

describe('POST /api/v1/user/invitations/{id}/accept', () => {
  it('makes the invitee a member with the invited role and answers 201 with the member object', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const newcomer = await createUser({ full_name: 'New Comer' });
    const id = await invite(api, boss, org, newcomer, 'contributor');
    const res = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: newcomer.token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      user_id: newcomer.id,
      email: newcomer.email,
      username: newcomer.username,
      full_name: 'New Comer',
      role: 'contributor',
      joined_at: expect.any(String),
    });
    const list = await rest(api, 'GET', `/org/${org}/members`, { token: newcomer.token });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(expect.objectContaining({ user_id: newcomer.id, role: 'contributor' }));
    expect((await rest(api, 'GET', '/user/invitations', { token: newcomer.token })).body).toEqual([]);
    expect((await rest(api, 'GET', `/org/${org}/invitations`, { token: boss.token })).body).toEqual([]);
    const again = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: newcomer.token });
    expect(again.status).toBe(404);
  });

  it('lets an account created after the invitation accept it', async () => {
    const boss = await createUser();
    const email = `${randomKey('later')}@example.test`;
    expect((await rest(api, 'POST', `/org/${boss.orgKey}/members`, { token: boss.token, body: { email, role: 'reader' } })).status).toBe(202);
    const later = await createUser({ email });
    const [item] = (await rest(api, 'GET', '/user/invitations', { token: later.token })).body;
    const res = await rest(api, 'POST', `/user/invitations/${item.id}/accept`, { token: later.token });
    expect(res.status).toBe(201);
    expect(await memberIds(boss.orgKey)).toContain(later.id);
  });

  it("answers 404 to another account's acceptance and leaves the invitation to its invitee", async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    for (const stranger of [outsider, boss]) {
      const res = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: stranger.token });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('not_found_error');
    }
    expect((await rest(api, 'POST', `/user/invitations/${id}/decline`, { token: outsider.token })).status).toBe(404);
    expect(await memberIds(boss.orgKey)).toEqual([boss.id]);
    expect((await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token })).status).toBe(201);
  });

  it('answers 404 for an expired invitation and adds no one', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    await InvitationModel.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id } });
    const res = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
    expect((await rest(api, 'GET', '/user/invitations', { token: friend.token })).body).toEqual([]);
    expect(await memberIds(boss.orgKey)).toEqual([boss.id]);
  });

  it("answers 409 member_limit_exceeded_error when the organization is full at acceptance", async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const row = await orgRow(org);
    row.max_members = 3;
    await row.save();
    const extra = await createUser();
    const id = await invite(api, boss, org, extra, 'reader');
    const res = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: extra.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('member_limit_exceeded_error');
    expect(await MembershipModel.count({ where: { organization_id: row.id } })).toBe(3);
    // Still pending: once a seat frees up, the same invitation goes through.
    row.max_members = 4;
    await row.save();
    expect((await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: extra.token })).status).toBe(201);
  });

  it('answers 409 already_exists_error when the invitee became a member meanwhile', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    await addMember(boss.orgKey, friend, 'contributor');
    const res = await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('makes one membership of two concurrent acceptances of one invitation', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'contributor');
    const results = await Promise.all([1, 2, 3].map(() => rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token })));
    expect(results.map((res) => res.status).sort()).toEqual([201, 404, 404]);
    const org = await orgRow(boss.orgKey);
    expect(await MembershipModel.count({ where: { organization_id: org.id, user_id: friend.id } })).toBe(1);
  });

  it('keeps the member limit when several invitees accept at the same time', async () => {
    const boss = await createUser();
    const org = await orgRow(boss.orgKey);
    org.max_members = 2;
    await org.save();
    const invitees = await Promise.all([1, 2, 3].map(() => createUser()));
    const ids: string[] = [];
    for (const invitee of invitees) ids.push(await invite(api, boss, boss.orgKey, invitee, 'reader'));
    const results = await Promise.all(invitees.map((invitee, index) => rest(api, 'POST', `/user/invitations/${ids[index]}/accept`, { token: invitee.token })));
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    expect(await MembershipModel.count({ where: { organization_id: org.id } })).toBe(2);
  });

  it('refuses an unverified account with 403 user_verification_error when verification is required', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    await UserModel.update({ email_verified_at: null }, { where: { id: friend.id } });
    await withVerificationRequired(async () => {
      for (const [method, path] of [
        ['GET', '/user/invitations'],
        ['POST', `/user/invitations/${id}/accept`],
        ['POST', `/user/invitations/${id}/decline`],
      ]) {
        const res = await rest(api, method, path, { token: friend.token });
        expect(res.status).toBe(403);
        expect(res.body.type).toBe('user_verification_error');
      }
      expect(await memberIds(boss.orgKey)).toEqual([boss.id]);
      await UserModel.update({ email_verified_at: new Date() }, { where: { id: friend.id } });
      expect((await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token })).status).toBe(201);
    });
  });

  it('lets an unverified account accept when verification is not required (development)', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    await UserModel.update({ email_verified_at: null }, { where: { id: friend.id } });
    expect(config().REQUIRE_EMAIL_VERIFICATION).toBe(false);
    expect((await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token })).status).toBe(201);
  });

  it('refuses an acceptance or a decline made with a limited API key with 403', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    const key = await rest(api, 'POST', '/user/api-keys', { token: friend.token, body: { name: 'read-only', allowed_scopes: [] } });
    for (const action of ['accept', 'decline']) {
      const res = await rest(api, 'POST', `/user/invitations/${id}/${action}`, { headers: { 'x-api-key': key.body.key } });
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('forbidden_error');
    }
    expect(await memberIds(boss.orgKey)).toEqual([boss.id]);
  });

  it('rejects a malformed invitation id with 422 uuid_parsing at the path', async () => {
    const res = await rest(api, 'POST', '/user/invitations/not-a-uuid/accept', { token: outsider.token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['path', 'id'], type: 'uuid_parsing' })]);
  });

  it('accepts through GraphQL', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'contributor');
    const res = await runOperation(api, 'AcceptInvitation', { id }, friend.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.accept_invitation).toMatchObject({ user_id: friend.id, username: friend.username, role: 'contributor' });
  });
});

describe('POST /api/v1/user/invitations/{id}/decline', () => {
  it('declines with 200 {id, status}; the invitation is gone and the owner may invite again', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    const res = await rest(api, 'POST', `/user/invitations/${id}/decline`, { token: friend.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, status: 'declined' });
    expect((await rest(api, 'GET', '/user/invitations', { token: friend.token })).body).toEqual([]);
    expect((await rest(api, 'GET', `/org/${boss.orgKey}/invitations`, { token: boss.token })).body).toEqual([]);
    expect((await rest(api, 'POST', `/user/invitations/${id}/accept`, { token: friend.token })).status).toBe(404);
    expect(await memberIds(boss.orgKey)).toEqual([boss.id]);
    const renewed = await invite(api, boss, boss.orgKey, friend, 'reader');
    expect(renewed).not.toBe(id);
  });

  it('declines through GraphQL', async () => {
    const boss = await createUser();
    const friend = await createUser();
    const id = await invite(api, boss, boss.orgKey, friend, 'reader');
    const res = await runOperation(api, 'DeclineInvitation', { id }, friend.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.decline_invitation).toEqual({ id, status: 'declined' });
  });
});

import { Op, type Transaction } from 'sequelize';
import { InvitationModel, MembershipModel, UserModel, type OrganizationModel, type Role } from '../../../models';
import { runInBackground } from '../../core/background';
import { requireViewer, type AppContext } from '../../core/context';
import { AlreadyExistsError, ConflictError, ForbiddenError, NotFoundError, RateLimitedError } from '../../core/errors';
import { pageWindow, type ListPageArgs } from '../../core/pagination';
import { requireScope, requireUnrestrictedKey, resolveWholeOrg } from '../../core/tenancy/tenant-scope';
import type { Viewer } from '../../core/viewer';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { publicLink, queueMail } from '../mail/mail.service';
import { awaitsVerification } from '../accounts/email-verification.service';
import { maxMembers } from '../organizations/organization-limits';
import { MemberLimitExceededError } from './members.errors';
import type { InviteMemberInput } from './members.inputs';
import { lockOrganization, lockOrganizationAs, type Member } from './members.service';

/**
 * Invitations (decisions.md §3). Adding a member is an invitation of an
 * e-mail address; the account with that address accepts or declines it.
 *
 * - Nothing about the address is looked up before acceptance except whether
 *   it already belongs to a member of the inviting organization (409, which
 *   its owners can read from the member list anyway): the reply and the
 *   mail are the same whether or not an account exists, and the mail is
 *   written after the reply.
 * - An invitation that is not pending, has expired or is addressed to another
 *   address is "not found" (404) to the invitee, so its existence is never
 *   disclosed to anyone but the invited address.
 * - Inviting and accepting take the organization's row lock (the one member
 *   changes take), so the "already a member" and member-limit checks hold
 *   under concurrency and two accepts of one invitation make one membership.
 * - Status moves are conditional (`WHERE status = 'pending'`): an accept and a
 *   decline or revoke racing cannot both win.
 */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A refreshed invitation is mailed again only once this long has passed since its last mail (no relay for repeated invites). */
export const INVITATION_REMAIL_AFTER_MS = 10 * 60 * 1000;
/** The window in which an organization may make as many new invitations as it may hold pending. */
export const INVITATIONS_WINDOW_MS = 60 * 60 * 1000;
/** Pending invitations an organization may hold: its member limit, and never fewer than this. */
export const MIN_PENDING_INVITATIONS = 20;

/** How invitation addresses are stored and compared (the column is lower-case). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface InvitationRecord {
  id: string;
  email: string;
  role: Role;
  inviter_username: string;
  created_at: Date;
  expires_at: Date;
}

export interface UserInvitationRecord extends Omit<InvitationRecord, 'email'> {
  org_key: string;
  org_name: string;
}

async function isMemberAddress(organizationId: string, email: string, transaction: Transaction): Promise<boolean> {
  const rows = await plainQuery(
    // users.email is citext: the comparison ignores case, as the stored invitation address does.
    'SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $org AND u.email = $email LIMIT 1',
    { org: organizationId, email },
    { transaction },
  );
  return rows.length > 0;
}

/**
 * Invites an address (owner only). Inviting an address that already has a
 * pending, unexpired invitation refreshes it: the new role and inviter, seven
 * more days (its id and created_at stay), and a new mail unless one went out
 * in the last INVITATION_REMAIL_AFTER_MS; an expired one is replaced by a new
 * invitation. An organization holds at most as many pending
 * invitations as its member limit (409 past it), so nobody can use it to mail
 * any number of addresses (never fewer than MIN_PENDING_INVITATIONS); it
 * makes at most that many new ones per INVITATIONS_WINDOW_MS (429 past it),
 * so revoking to make room does not either; and an address gets at most one
 * mail per INVITATION_REMAIL_AFTER_MS, whatever became of the invitations.
 */
export async function inviteMember(ctx: AppContext, orgKey: string, input: InviteMemberInput): Promise<InvitationModel> {
  const access = await resolveWholeOrg(ctx, orgKey);
  requireScope(access, 'members:manage');
  const email = normalizeEmail(input.email);
  const { invitation, org, mail } = await database().transaction(async (transaction) => {
    const org = await lockOrganizationAs(access, 'members:manage', transaction);
    if (await isMemberAddress(org.id, email, transaction)) {
      throw new AlreadyExistsError('The address belongs to a member of this organization');
    }
    // Locked, so a decline or revoke landing meanwhile waits and then applies to the refreshed row (or, once committed, is seen here).
    const pending = await InvitationModel.findOne({ where: { organization_id: org.id, email, status: 'pending' }, transaction, lock: transaction.LOCK.UPDATE });
    // One mail to an address per INVITATION_REMAIL_AFTER_MS: none while any of its invitations here (this pending
    // one, or one revoked or declined since) was mailed within it.
    const recent = await InvitationModel.findOne({
      attributes: ['id'],
      where: { organization_id: org.id, email, mailed_at: { [Op.gt]: new Date(Date.now() - INVITATION_REMAIL_AFTER_MS) } },
      transaction,
    });
    const mail = !recent;
    const fields = { role: input.role, invited_by: access.viewer.user.id, expires_at: new Date(Date.now() + INVITATION_TTL_MS), ...(mail ? { mailed_at: new Date() } : {}) };
    if (pending && pending.expires_at.getTime() > Date.now()) return { invitation: await pending.update(fields, { transaction }), org, mail };
    // An expired one is replaced, under the cap and the hourly limit like any new one (refreshing it would let expired
    // invitations saved up over weeks come back, and be mailed, all at once).
    if (pending) await pending.destroy({ transaction });
    const cap = Math.max(maxMembers(org), MIN_PENDING_INVITATIONS);
    const open = await InvitationModel.count({ where: { organization_id: org.id, status: 'pending', expires_at: { [Op.gt]: new Date() } }, transaction });
    if (open >= cap) throw new ConflictError(`The organization already has ${open} pending invitations; revoke some or wait for answers`);
    // Revoking makes room: new invitations an hour are held to the same number, so revoking and inviting again
    // cannot mail any number of addresses either.
    const hourAgo = new Date(Date.now() - INVITATIONS_WINDOW_MS);
    const made = await InvitationModel.findAll({
      attributes: ['created_at'],
      where: { organization_id: org.id, created_at: { [Op.gt]: hourAgo } },
      // The cap-th newest: the one whose hour ending frees a place.
      order: [['created_at', 'DESC']],
      limit: 1,
      offset: cap - 1,
      transaction,
    });
    if (made.length) throw new RateLimitedError(Math.max(1, Math.ceil((made[0].created_at.getTime() + INVITATIONS_WINDOW_MS - Date.now()) / 1000)));
    return { invitation: await InvitationModel.create({ organization_id: org.id, email, ...fields }, { transaction }), org, mail };
  });
  const inviter = access.viewer.user.username;
  // Written after the reply, so its timing does not depend on the address either.
  if (mail) runInBackground('invitation_mail', () => sendInvitationMail(invitation, org, inviter));
  return invitation;
}

/** One text for every address: nothing in it depends on whether the address has an account. */
async function sendInvitationMail(invitation: InvitationModel, org: OrganizationModel, inviter: string): Promise<void> {
  const link = publicLink('/invitations');
  await queueMail({
    to: invitation.email,
    subject: `You are invited to join ${org.name}`,
    kind: 'member_invitation',
    link,
    text: [
      `${inviter} invited you to join the organization "${org.name}" (${org.key}) as ${invitation.role}.`,
      '',
      `Sign in with this address (or sign up with it if you have no account yet), then accept or decline: ${link}`,
      `API: GET /api/v1/user/invitations, then POST /api/v1/user/invitations/${invitation.id}/accept (or /decline).`,
      '',
      `The invitation expires at ${invitation.expires_at.toISOString()}.`,
      'If you did not expect it, ignore this message.',
    ].join('\n'),
  });
}

/** The organization's pending, unexpired invitations, oldest first (owner only). */
export async function listOrgInvitations(ctx: AppContext, orgKey: string, page: ListPageArgs = {}): Promise<InvitationRecord[]> {
  const access = await resolveWholeOrg(ctx, orgKey);
  requireScope(access, 'members:manage');
  return plainQuery<InvitationRecord>(
    `SELECT i.id, i.email, i.role, u.username AS inviter_username, i.created_at, i.expires_at
       FROM invitations i JOIN users u ON u.id = i.invited_by
      WHERE i.organization_id = $org AND i.status = 'pending' AND i.expires_at > now()
      ORDER BY i.created_at ASC, i.id ASC
      LIMIT $limit OFFSET $offset`,
    { org: access.org.id, ...pageWindow(page) },
  );
}

/** Withdraws a pending invitation of the organization (owner only); anything else is 404. */
export async function revokeInvitation(ctx: AppContext, orgKey: string, id: string): Promise<{ id: string; status: 'revoked' }> {
  const access = await resolveWholeOrg(ctx, orgKey);
  const found = await InvitationModel.findOne({ where: { id, organization_id: access.org.id, status: 'pending' } });
  if (!found) throw new NotFoundError('Invitation');
  requireScope(access, 'members:manage');
  await database().transaction(async (transaction) => {
    await lockOrganizationAs(access, 'members:manage', transaction);
    const [changed] = await InvitationModel.update({ status: 'revoked', responded_at: new Date() }, { where: { id, status: 'pending' }, transaction });
    if (changed !== 1) throw new NotFoundError('Invitation'); // answered or revoked concurrently
  });
  return { id, status: 'revoked' };
}

/**
 * Who may answer invitations addressed to their account: with
 * REQUIRE_EMAIL_VERIFICATION on, only an account whose address is verified
 * (so registering someone else's address collects nothing). Every invitee
 * path calls this.
 */
function requireVerifiedInvitee(viewer: Viewer): void {
  if (awaitsVerification(viewer.user)) throw new ForbiddenError('Verify your e-mail address before answering invitations', 'user_verification_error');
}

/** A pending, unexpired invitation addressed to the viewer, else 404. */
async function findOpenInvitation(viewer: Viewer, id: string, transaction?: Transaction): Promise<InvitationModel> {
  const invitation = await InvitationModel.findOne({
    where: { id, email: normalizeEmail(viewer.user.email), status: 'pending', expires_at: { [Op.gt]: new Date() } },
    transaction,
    lock: transaction ? transaction.LOCK.UPDATE : undefined,
  });
  if (!invitation) throw new NotFoundError('Invitation');
  return invitation;
}

/**
 * The pending invitations addressed to the caller, oldest first. A key
 * limited to an organization or workspace sees no other organization, so it
 * lists none.
 */
export async function listUserInvitations(ctx: AppContext, page: ListPageArgs = {}): Promise<UserInvitationRecord[]> {
  const viewer = requireViewer(ctx);
  requireVerifiedInvitee(viewer);
  const window = pageWindow(page);
  if (viewer.apiKey?.organization_id || viewer.apiKey?.workspace_id) return [];
  return plainQuery<UserInvitationRecord>(
    `SELECT i.id, o.key AS org_key, o.name AS org_name, i.role, u.username AS inviter_username, i.created_at, i.expires_at
       FROM invitations i
       JOIN organizations o ON o.id = i.organization_id
       JOIN users u ON u.id = i.invited_by
      WHERE i.email = $email AND i.status = 'pending' AND i.expires_at > now()
      ORDER BY i.created_at ASC, i.id ASC
      LIMIT $limit OFFSET $offset`,
    { email: normalizeEmail(viewer.user.email), ...window },
  );
}

/**
 * Accepts an invitation addressed to the caller: the membership is created
 * with the invitation's role, under the organization's row lock, where the
 * member limit is checked (409 member_limit_exceeded_error).
 */
export async function acceptInvitation(ctx: AppContext, id: string): Promise<Member> {
  const viewer = requireViewer(ctx);
  const { organization_id: organizationId } = await findOpenInvitation(viewer, id);
  requireVerifiedInvitee(viewer);
  requireUnrestrictedKey(viewer, 'A limited API key cannot answer invitations');
  return database().transaction(async (transaction) => {
    const org = await lockOrganization(organizationId, transaction);
    // Read again under the lock: a concurrent accept, decline or revoke has settled by now.
    const invitation = await findOpenInvitation(viewer, id, transaction);
    const existing = await MembershipModel.findOne({ where: { organization_id: org.id, user_id: viewer.user.id }, transaction });
    if (existing) throw new AlreadyExistsError('You are already a member of this organization');
    const limit = maxMembers(org);
    if ((await MembershipModel.count({ where: { organization_id: org.id }, transaction })) + 1 > limit) {
      throw new MemberLimitExceededError(limit);
    }
    const membership = await MembershipModel.create({ organization_id: org.id, user_id: viewer.user.id, role: invitation.role }, { transaction });
    await invitation.update({ status: 'accepted', responded_at: new Date() }, { transaction });
    const user = await UserModel.findByPk(viewer.user.id, { transaction });
    if (!user) throw new NotFoundError('User');
    return { membership, user };
  });
}

/** Declines an invitation addressed to the caller. */
export async function declineInvitation(ctx: AppContext, id: string): Promise<{ id: string; status: 'declined' }> {
  const viewer = requireViewer(ctx);
  await findOpenInvitation(viewer, id);
  requireVerifiedInvitee(viewer);
  requireUnrestrictedKey(viewer, 'A limited API key cannot answer invitations');
  const [changed] = await InvitationModel.update({ status: 'declined', responded_at: new Date() }, { where: { id, status: 'pending' } });
  if (changed !== 1) throw new NotFoundError('Invitation'); // answered or revoked concurrently
  return { id, status: 'declined' };
}

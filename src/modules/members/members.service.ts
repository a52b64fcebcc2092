import type { Transaction } from 'sequelize';
import { InvitationModel, MembershipModel, OrganizationModel, UserModel, type Role } from '../../../models';
import type { Scope } from '../../core/authz/scopes';
import type { OrgScope } from '../../core/tenancy/scope';
import { requireScope, requireUnrestrictedKey, resolveWholeOrg } from '../../core/tenancy/tenant-scope';
import { ConflictError, NotFoundError } from '../../core/errors';
import { database } from '../../db/database';
import type { AppContext } from '../../core/context';
import { pageWindow, type ListPageArgs } from '../../core/pagination';
import { revokeOrganizationKeys } from '../api-keys/api-keys.service';
import type { UpdateMemberInput } from './members.inputs';

export interface Member {
  membership: MembershipModel;
  user: UserModel;
}

/**
 * Locks the organization row so concurrent membership changes of one org run
 * one after the other (the last-owner and member-limit checks stay true;
 * invitations take it too, see invitations.service.ts).
 */
export async function lockOrganization(organizationId: string, transaction: Transaction): Promise<OrganizationModel> {
  const org = await OrganizationModel.findByPk(organizationId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!org) throw new NotFoundError('Organization');
  return org;
}

/**
 * lockOrganization for a member's own request: the caller's role, read when
 * the request began, is read again under the lock, where a removal or
 * demotion that committed meanwhile is seen. No longer a member: 404; the
 * role no longer holds `scope`: 403.
 */
export async function lockOrganizationAs(access: OrgScope, scope: Scope | null, transaction: Transaction): Promise<OrganizationModel> {
  const org = await lockOrganization(access.org.id, transaction);
  const membership = await MembershipModel.findOne({ where: { organization_id: org.id, user_id: access.viewer.user.id }, transaction });
  if (!membership) throw new NotFoundError('Organization');
  if (scope) requireScope({ ...access, role: membership.role }, scope);
  return org;
}

/**
 * Inviting is an owner's act: an owner who stops being one (removed, left,
 * demoted) leaves no invitation of theirs pending, so none of them can bring
 * anyone (themselves included, through another account) back in.
 */
async function withdrawInvitationsOf(organizationId: string, userId: string, transaction: Transaction): Promise<void> {
  await InvitationModel.update({ status: 'revoked', responded_at: new Date() }, { where: { organization_id: organizationId, invited_by: userId, status: 'pending' }, transaction });
}

async function ownerCount(organizationId: string, transaction: Transaction): Promise<number> {
  return MembershipModel.count({ where: { organization_id: organizationId, role: 'owner' }, transaction });
}

async function findMember(organizationId: string, userId: string, transaction?: Transaction): Promise<Member> {
  const membership = await MembershipModel.findOne({ where: { organization_id: organizationId, user_id: userId }, transaction });
  const user = membership ? await UserModel.findByPk(userId, { transaction }) : null;
  if (!membership || !user) throw new NotFoundError('Member');
  return { membership, user };
}


export async function listMembers(ctx: AppContext, orgKey: string, page: ListPageArgs = {}): Promise<Member[]> {
  // Every member may list; reads need no scope, so a read-only API key (allowed_scopes []) can list too,
  // but not a key limited to one workspace (the member list, with e-mail addresses, is in none).
  const access = await resolveWholeOrg(ctx, orgKey);
  const memberships = await MembershipModel.findAll({
    where: { organization_id: access.org.id },
    order: [['created_at', 'ASC'], ['user_id', 'ASC']],
    ...pageWindow(page),
  });
  const users = await UserModel.findAll({ where: { id: memberships.map((row) => row.user_id) } });
  const byId = new Map(users.map((user) => [user.id, user]));
  return memberships.flatMap((membership) => {
    const user = byId.get(membership.user_id);
    return user ? [{ membership, user }] : [];
  });
}

export async function updateMember(ctx: AppContext, orgKey: string, userId: string, input: UpdateMemberInput): Promise<Member> {
  const access = await resolveWholeOrg(ctx, orgKey);
  await findMember(access.org.id, userId);
  requireScope(access, 'members:manage');
  return database().transaction(async (transaction) => {
    await lockOrganizationAs(access, 'members:manage', transaction);
    const member = await findMember(access.org.id, userId, transaction);
    const role: Role = input.role;
    if (member.membership.role === role) return member;
    if (member.membership.role === 'owner' && (await ownerCount(access.org.id, transaction)) <= 1) {
      throw new ConflictError('The last owner of an organization cannot be demoted');
    }
    if (member.membership.role === 'owner') await withdrawInvitationsOf(access.org.id, userId, transaction);
    member.membership.role = role;
    await member.membership.save({ transaction });
    return member;
  });
}

/** Owners remove anyone; every member may remove themselves. The last owner stays. The user's keys limited to the organization are revoked. */
export async function removeMember(ctx: AppContext, orgKey: string, userId: string): Promise<{ user_id: string; removed: true }> {
  const access = await resolveWholeOrg(ctx, orgKey);
  await findMember(access.org.id, userId);
  const other = userId !== access.viewer.user.id;
  if (other) requireScope(access, 'members:manage');
  else requireUnrestrictedKey(access.viewer, 'A limited API key cannot remove its user from the organization');
  await database().transaction(async (transaction) => {
    await lockOrganizationAs(access, other ? 'members:manage' : null, transaction);
    const member = await findMember(access.org.id, userId, transaction);
    if (member.membership.role === 'owner' && (await ownerCount(access.org.id, transaction)) <= 1) {
      throw new ConflictError('The last owner of an organization cannot leave it');
    }
    if (member.membership.role === 'owner') await withdrawInvitationsOf(access.org.id, userId, transaction);
    await member.membership.destroy({ transaction });
    await revokeOrganizationKeys(userId, access.org.id, transaction);
  });
  return { user_id: userId, removed: true };
}

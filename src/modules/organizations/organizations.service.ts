import type { Transaction } from 'sequelize';
import { MembershipModel, OrganizationModel, type OrganizationRecord, type Role, type UserModel } from '../../../models';
import { requireViewer, type AppContext } from '../../core/context';
import { can, organizationColumns, resolveOrg } from '../../core/tenancy/tenant-scope';
import { tenantFilter, type TenantFilter } from '../../core/tenancy/tenant-sql';
import { nestRow, plainQuery } from '../../db/hot';
import { pageWindow, type ListPageArgs } from '../../core/pagination';
import { insertWorkspace } from '../workspaces/workspaces.service';

/**
 * A new user's personal organization: key = username, the user its owner,
 * with a default workspace (`default`) holding a default project.
 */
export async function createPersonalOrganization(user: UserModel, transaction: Transaction): Promise<OrganizationModel> {
  const org = await OrganizationModel.create(
    { key: user.username, name: user.full_name || user.username, is_personal: true },
    { transaction },
  );
  await MembershipModel.create({ organization_id: org.id, user_id: user.id, role: 'owner' }, { transaction });
  await insertWorkspace(
    { organization_id: org.id, key: 'default', name: 'Default', is_default: true, created_by: user.id },
    transaction,
  );
  return org;
}

export interface OrganizationMembership {
  org: OrganizationRecord;
  role: Role;
}


/**
 * Every organization a user belongs to, as plain rows, oldest membership first (the personal
 * one first), in one statement; `tenant` narrows it to an API key's limits.
 */
export async function membershipsOf(userId: string, tenant?: TenantFilter, page: ListPageArgs = {}): Promise<OrganizationMembership[]> {
  const rows = await plainQuery<Record<string, unknown>>(
    `SELECT m.role AS "role", ${organizationColumns('o')} FROM memberships m JOIN organizations o ON o.id = m.organization_id
      WHERE m.user_id = $user_id${tenant ? ` AND ${tenant.where('o', { org: 'id', workspace: false })}` : ''}
      ORDER BY m.created_at ASC, m.id ASC
      LIMIT $limit OFFSET $offset`,
    { ...tenant?.bind, ...pageWindow(page), user_id: userId },
  );
  return rows.map((row) => {
    const nested = nestRow(row);
    return { org: nested.o as unknown as OrganizationRecord, role: nested.role as unknown as Role };
  });
}

/** The user's personal organization (the one they own with key = username, else any personal one they own). */
export function personalOrganization(user: Pick<UserModel, 'username'>, memberships: OrganizationMembership[]): OrganizationRecord | null {
  const owned = memberships.filter((item) => item.role === 'owner' && item.org.is_personal);
  return (owned.find((item) => item.org.key.toLowerCase() === user.username.toLowerCase()) ?? owned[0])?.org ?? null;
}

/** The organizations the caller may see; an API key limited to one organization sees only it. */
export async function listViewerOrganizations(
  ctx: AppContext,
  page: ListPageArgs = {},
): Promise<{ org: OrganizationRecord; canManageMembers: boolean }[]> {
  const viewer = requireViewer(ctx);
  return (await membershipsOf(viewer.user.id, tenantFilter(viewer), page)).map((item) => ({
    org: item.org,
    canManageMembers: can({ viewer, org: item.org, role: item.role, policy: ctx.policy, workspace: null }, 'members:manage'),
  }));
}

export async function getOrganization(ctx: AppContext, orgKey: string): Promise<{ org: OrganizationRecord; canManageMembers: boolean }> {
  const access = await resolveOrg(ctx, orgKey);
  return { org: access.org, canManageMembers: can(access, 'members:manage') };
}


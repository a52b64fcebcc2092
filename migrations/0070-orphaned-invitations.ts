import type { Migration } from './types';

/**
 * Pending invitations whose sender is no longer an owner of the
 * organization are withdrawn: from now on removing or demoting an owner
 * withdraws theirs (members.service.ts), and this does the same for the
 * owners removed or demoted before.
 */
export const WITHDRAW_ORPHANED_SQL = `
  UPDATE invitations i SET status = 'revoked', responded_at = now(), updated_at = now()
   WHERE i.status = 'pending'
     AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = i.organization_id AND m.user_id = i.invited_by AND m.role = 'owner')`;

export const up: Migration = async ({ context: sql }) => {
  await sql.query(WITHDRAW_ORPHANED_SQL);
};

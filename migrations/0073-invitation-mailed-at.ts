import type { Migration } from './types';

/**
 * When an invitation was last mailed (members/invitations.service.ts): the
 * re-mail window runs from the last mail to an address, not from its
 * invitations' last change (a decline or a revocation is not a mail).
 * Rows from before take their last change, which is no earlier than their
 * last mail; the index of 0072 on that change gives way to one on this.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query('ALTER TABLE invitations ADD COLUMN mailed_at timestamptz');
  await sql.query('UPDATE invitations SET mailed_at = updated_at');
  await sql.query('DROP INDEX invitations_org_email');
  await sql.query('CREATE INDEX invitations_org_email_mailed ON invitations (organization_id, email, mailed_at)');
};

import type { Migration } from './types';

/**
 * Indexes for the invitation mail limits (members/invitations.service.ts):
 * an organization's invitations of one address whatever their status (the
 * last mail to it), and those it created in the last hour.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query('CREATE INDEX invitations_org_email ON invitations (organization_id, email, updated_at)');
  await sql.query('CREATE INDEX invitations_org_created ON invitations (organization_id, created_at)');
};

import type { Migration } from './types';

/**
 * Member invitations (decisions.md §3): an owner invites an e-mail address,
 * the signed-in account with that address accepts or declines; no token is
 * needed, since acceptance is tied to the invitee's own credentials.
 * - `email` is stored trimmed and lower-cased (CHECK), so one plain index
 *   serves the invitee's look-up and the owner's uniqueness.
 * - At most one pending invitation per (organization, address): inviting the
 *   same address again refreshes that row (role, inviter, a new expiry).
 *   Expired invitations stay `pending` with `expires_at` in the past; every
 *   read filters on `expires_at`, and a new invitation refreshes them.
 * - Status moves are conditional updates (`… WHERE status = 'pending'`),
 *   so an accept and a revoke or decline racing cannot both win.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE invitations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      email text NOT NULL CHECK (email = lower(email)),
      role member_role NOT NULL,
      invited_by uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
      expires_at timestamptz NOT NULL,
      responded_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX invitations_pending_org_email ON invitations (organization_id, email) WHERE status = 'pending';
    CREATE INDEX invitations_pending_email ON invitations (email, created_at, id) WHERE status = 'pending';
  `);
};

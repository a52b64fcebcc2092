import type { Migration } from './types';

/**
 * Members, projects and the chat integration.
 * - memberships: index for listing an organization's members by join date.
 * - chat_integrations: one row per organization, created lazily on the first
 *   settings write (reads of an org without a row answer the defaults).
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE INDEX IF NOT EXISTS memberships_org_joined_idx ON memberships (organization_id, created_at, user_id);
    CREATE INDEX IF NOT EXISTS memberships_org_owner_idx ON memberships (organization_id) WHERE role = 'owner';

    CREATE TABLE chat_integrations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL UNIQUE REFERENCES organizations(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'disconnected'
        CHECK (status IN ('disabled', 'disconnected', 'connected', 'connecting')),
      bot_handle text NOT NULL DEFAULT '',
      bot_user_id text NOT NULL DEFAULT '',
      team_id text NOT NULL DEFAULT '',
      team_name text NOT NULL DEFAULT '',
      team_url text NOT NULL DEFAULT '',
      connected_at timestamptz,
      disconnected_at timestamptz,
      last_event_at timestamptz,
      connected_by uuid REFERENCES users(id) ON DELETE SET NULL,
      disconnect_reason text,
      masked_credentials jsonb NOT NULL DEFAULT '{}'::jsonb,
      follow_ups text NOT NULL DEFAULT 'requester' CHECK (follow_ups IN ('requester', 'any_linked')),
      shared_channels text NOT NULL DEFAULT 'link' CHECK (shared_channels IN ('link', 'same')),
      thread_detail text NOT NULL DEFAULT 'full' CHECK (thread_detail IN ('full', 'final', 'link')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `);
};

import type { Migration } from './types';

/**
 * Device-code login (decisions §14, RFC 8628's flow as the CLI speaks it):
 * the device code only as its SHA-256, the short user code as the person
 * types it (upper case, no separator), single use, expiring.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE device_codes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      device_code_hash text NOT NULL UNIQUE,
      user_code text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'used')),
      user_id uuid REFERENCES users(id) ON DELETE CASCADE,
      client_ip text,
      expires_at timestamptz NOT NULL,
      decided_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    -- A user code is unique among the codes still pending (codes are short; old ones may repeat).
    CREATE UNIQUE INDEX device_codes_pending_user_code ON device_codes (user_code) WHERE status = 'pending';
    CREATE INDEX device_codes_expires ON device_codes (expires_at);
  `);
};

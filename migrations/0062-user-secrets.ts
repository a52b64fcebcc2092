import type { Migration } from './types';

/**
 * User secrets (decisions §14): per user, named like environment variables,
 * the value sealed with AES-256-GCM (ciphertext, IV and tag; `key_id` names
 * the key that sealed it, so keys can be rotated). Only `masked_value` is
 * ever shown. Deleting the user deletes its secrets.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE user_secrets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      provider text,
      ciphertext bytea NOT NULL,
      iv bytea NOT NULL,
      auth_tag bytea NOT NULL,
      key_id text NOT NULL,
      masked_value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT user_secrets_user_name UNIQUE (user_id, name)
    );
    -- Rotation re-seals the values still under an older key.
    CREATE INDEX user_secrets_key_id ON user_secrets (key_id);
  `);
};

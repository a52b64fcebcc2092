import type { Migration } from './types';

/**
 * Account hardening (issue 20, items 4 and 7):
 * - password_reset_tokens also holds e-mail verification tokens (`purpose`);
 *   a token of one purpose is never accepted for the other.
 * - a partial index for counting a user's active API keys (MAX_ACTIVE_API_KEYS).
 * - signup used to stamp email_verified_at without any verification: a stamp
 *   made within a minute of the account's creation is such a stamp, not a
 *   verification, and is cleared (a real one comes from a mailed link).
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    ALTER TABLE password_reset_tokens
      ADD COLUMN purpose text NOT NULL DEFAULT 'password_reset'
        CONSTRAINT password_reset_tokens_purpose_check CHECK (purpose IN ('password_reset', 'email_verification'));
    DROP INDEX password_reset_tokens_user_idx;
    CREATE INDEX password_reset_tokens_user_idx ON password_reset_tokens (user_id, purpose) WHERE used_at IS NULL;

    CREATE INDEX api_keys_user_active_idx ON api_keys (user_id) WHERE revoked_at IS NULL;

    UPDATE users SET email_verified_at = NULL
     WHERE email_verified_at IS NOT NULL AND email_verified_at < created_at + interval '1 minute';
  `);
};

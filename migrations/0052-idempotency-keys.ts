import type { Migration } from './types';

/**
 * Idempotency-Key (issue 22, item 4): one row per (credential, key) of a
 * REST POST, holding the request's fingerprint and, once it has one, its
 * reply; kept 24 hours.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE idempotency_keys (
      credential text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      status smallint,
      reply_headers jsonb,
      reply_body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (credential, key)
    );
    CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
  `);
};

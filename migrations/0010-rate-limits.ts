import type { Migration } from './types';

/** Counters for rate-limiter-flexible (its RateLimiterPostgres table layout). */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
  `);
};

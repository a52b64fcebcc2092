import type { Migration } from './types';

/**
 * `device_codes.token_version`: the approving user's token version when the
 * code was approved. The exchange gives a token only while it is still the
 * user's (a password reset bumps it), so an approval made with a session
 * the owner has since revoked yields nothing. Codes approved before this
 * migration (null) are refused: they expire within minutes anyway.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`ALTER TABLE device_codes ADD COLUMN token_version integer`);
};

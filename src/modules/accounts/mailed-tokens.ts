import type { Transaction } from 'sequelize';
import { PasswordResetTokenModel } from '../../../models';
import type { AccountTokenPurpose } from '../../../models/password-reset-token.model';
import { AuthenticationError } from '../../core/errors';
import { sha256 } from '../../core/secrets';

const NOUNS: Record<AccountTokenPurpose, string> = { password_reset: 'reset', email_verification: 'verification' };

/** 401 token_error: unknown, spent, or not for this purpose. */
export function invalidMailedToken(purpose: AccountTokenPurpose): AuthenticationError {
  return new AuthenticationError(`Invalid or already used ${NOUNS[purpose]} token`, 'token_error');
}

/** 401 expired_signature_error. */
export function expiredMailedToken(purpose: AccountTokenPurpose): AuthenticationError {
  return new AuthenticationError(`The ${NOUNS[purpose]} token has expired`, 'expired_signature_error');
}

/** The open token of `purpose` the text names (stored as its hash only), else 401 token_error; expiry is the caller's check. */
export async function findMailedToken(purpose: AccountTokenPurpose, token: string): Promise<PasswordResetTokenModel> {
  const row = await PasswordResetTokenModel.findOne({ where: { token_hash: sha256(token), purpose } });
  if (!row || row.used_at) throw invalidMailedToken(purpose);
  return row;
}

/** Spends the token (401 token_error when a concurrent request spent it first) and the user's other open tokens of its purpose. */
export async function spendMailedToken(row: PasswordResetTokenModel, transaction: Transaction): Promise<void> {
  const purpose = row.purpose;
  const now = new Date();
  const [spent] = await PasswordResetTokenModel.update({ used_at: now }, { where: { id: row.id, used_at: null }, transaction });
  if (spent !== 1) throw invalidMailedToken(purpose);
  await PasswordResetTokenModel.update({ used_at: now }, { where: { user_id: row.user_id, purpose, used_at: null }, transaction });
}

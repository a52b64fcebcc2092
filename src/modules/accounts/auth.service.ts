import crypto from 'node:crypto';
import { Op } from 'sequelize';
import { PasswordResetTokenModel, UserModel } from '../../../models';
import { assertActive } from '../../core/viewer';
import { AuthenticationError, ForbiddenError } from '../../core/errors';
import { database } from '../../db/database';
import { runInBackground } from '../../core/background';
import { consumeLoginAttempt } from '../../core/rate-limit';
import { publicLink, queueMail } from '../mail/mail.service';
import { awaitsVerification } from './email-verification.service';
import { revokeAllApiKeys } from '../api-keys/api-keys.service';
import { accessTokenResponse } from './access-token';
import { expiredMailedToken, findMailedToken, invalidMailedToken, spendMailedToken } from './mailed-tokens';
import type { ForgotPasswordInput, LoginInput, ResetPasswordInput } from './accounts.inputs';
import type { AccessTokenResponse, ForgotPasswordResponse } from './accounts.types';
import { checkLoginPassword, hashPassword, needsRehash } from './password';
import { sha256 } from '../../core/secrets';

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

const FORGOT_PASSWORD_REPLY: ForgotPasswordResponse = {
  status: 'accepted',
  detail: 'If the address exists, a reset link was sent',
};


/**
 * Login by e-mail or username. An unknown user costs one scrypt against a
 * dummy hash, so neither the message nor the timing tells whether it exists.
 * Failed attempts are throttled per account (LOGIN_ACCOUNT_RATE_LIMIT, on top
 * of the per-IP quota); a hash made with a weaker scrypt cost than the
 * current one is replaced now that the password is at hand.
 */
export async function login(input: LoginInput): Promise<AccessTokenResponse> {
  const identifier = (input.email ?? input.username ?? '').trim();
  // Usernames never contain '@' and e-mails always do, so one lookup serves both fields.
  const user = identifier
    ? await UserModel.findOne({ where: { [Op.or]: [{ email: identifier }, { username: identifier }] } })
    : null;
  // One bucket per account, reached by e-mail or username alike; unknown names get their own (the same behaviour).
  const forgive = await consumeLoginAttempt(user ? `user:${user.id}` : `name:${identifier.toLowerCase()}`);
  const valid = await checkLoginPassword(input.password, user?.password_hash ?? null);
  if (!user || !valid) throw new AuthenticationError('Incorrect e-mail, username or password');
  await forgive();
  assertActive(user);
  if (awaitsVerification(user)) throw new ForbiddenError('The e-mail address is not verified yet', 'user_verification_error');
  if (needsRehash(user.password_hash)) await upgradePasswordHash(user, input.password);
  return accessTokenResponse(user);
}

/** Rehashes at the current cost; conditional on the old hash, so a concurrent password reset is never overwritten. */
async function upgradePasswordHash(user: UserModel, password: string): Promise<void> {
  const upgraded = await hashPassword(password);
  await UserModel.update({ password_hash: upgraded }, { where: { id: user.id, password_hash: user.password_hash } });
}

function resetLink(email: string, token: string): string {
  return publicLink(`/reset-password?token=${encodeURIComponent(token)}&email=${encodeURIComponent(email)}`);
}

/**
 * Stores a single-use reset token (its sha256 only, valid one hour) and mails
 * it. The reply is the same whether or not the address exists.
 */
export async function forgotPassword(input: ForgotPasswordInput): Promise<ForgotPasswordResponse> {
  const user = await UserModel.findOne({ where: { email: input.email.trim() } });
  // Token and mail are written after the reply, so its timing is the same for every address.
  if (user && !user.is_suspended) runInBackground('password_reset_mail', () => sendResetMail(user));
  return { ...FORGOT_PASSWORD_REPLY };
}

async function sendResetMail(user: UserModel): Promise<void> {
  const token = crypto.randomBytes(32).toString('base64url');
  await PasswordResetTokenModel.create({
    user_id: user.id,
    token_hash: sha256(token),
    purpose: 'password_reset',
    expires_at: new Date(Date.now() + RESET_TOKEN_TTL_MS),
  });
  const link = resetLink(user.email, token);
  await queueMail({
    to: user.email,
    subject: 'Reset your password',
    kind: 'password_reset',
    link,
    text: [
      'Someone asked to reset the password of your account.',
      '',
      `Open this link within one hour to choose a new password: ${link}`,
      '',
      `Reset token: ${token}`,
      '',
      'If you did not ask for this, ignore this message; your password stays unchanged.',
    ].join('\n'),
  });
}

/**
 * Spends a reset token: sets the new password, bumps the token version (every
 * older JWT fails from now on), revokes every API key of the user (whoever
 * held the account before the reset keeps no key), spends the user's other
 * open reset tokens and replies with a fresh token.
 */
export async function resetPassword(input: ResetPasswordInput): Promise<AccessTokenResponse> {
  // Only a reset token resets: a verification token proves the address, not the right to the account's password.
  const row = await findMailedToken('password_reset', input.token);
  const user = await UserModel.findByPk(row.user_id);
  if (!user || user.email.toLowerCase() !== input.email.trim().toLowerCase()) throw invalidMailedToken('password_reset');
  if (row.expires_at.getTime() <= Date.now()) throw expiredMailedToken('password_reset');
  assertActive(user);
  const passwordHash = await hashPassword(input.password);
  await database().transaction(async (transaction) => {
    await spendMailedToken(row, transaction);
    // The user's row first: it serialises this with API key creation (api-keys.service lockKeyOwner).
    await UserModel.update(
      {
        password_hash: passwordHash,
        token_version: database().literal('token_version + 1'),
        // Receiving the mail proves the address.
        email_verified_at: database().literal('COALESCE(email_verified_at, now())'),
      },
      { where: { id: user.id }, transaction },
    );
    await revokeAllApiKeys(user.id, transaction);
  });
  await user.reload();
  return accessTokenResponse(user);
}

import crypto from 'node:crypto';
import { PasswordResetTokenModel, UserModel } from '../../../models';
import { config } from '../../config/config';
import { runInBackground } from '../../core/background';
import { assertActive } from '../../core/viewer';
import { database } from '../../db/database';
import { publicLink, queueMail } from '../mail/mail.service';
import { expiredMailedToken, findMailedToken, invalidMailedToken, spendMailedToken } from './mailed-tokens';
import type { ResendVerificationInput, VerifyEmailInput } from './accounts.inputs';
import type { ResendVerificationResponse, VerifyEmailResponse } from './accounts.types';
import { sha256 } from '../../core/secrets';

/**
 * E-mail verification: `email_verified_at` is set only by a link mailed to
 * the address (this token, or a password reset's), never by signup. Tokens
 * are single-use, stored as their sha256 in password_reset_tokens with
 * purpose `email_verification`, and valid for a day.
 */
export const VERIFICATION_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

const RESEND_REPLY: ResendVerificationResponse = {
  status: 'accepted',
  detail: 'If the address has an account that is not verified yet, a verification link was sent',
};

function verificationLink(token: string): string {
  return publicLink(`/verify-email?token=${encodeURIComponent(token)}`);
}

/**
 * The one rule on unverified addresses: with REQUIRE_EMAIL_VERIFICATION on,
 * an account whose address is not verified neither logs in nor answers
 * invitations (registering someone else's address collects nothing).
 */
export function awaitsVerification(user: { email_verified_at: Date | null }): boolean {
  return config().REQUIRE_EMAIL_VERIFICATION && !user.email_verified_at;
}

async function sendVerificationMail(user: Pick<UserModel, 'id' | 'email'>): Promise<void> {
  const token = crypto.randomBytes(32).toString('base64url');
  await PasswordResetTokenModel.create({
    user_id: user.id,
    token_hash: sha256(token),
    purpose: 'email_verification',
    expires_at: new Date(Date.now() + VERIFICATION_TOKEN_TTL_MS),
  });
  const link = verificationLink(token);
  await queueMail({
    to: user.email,
    subject: 'Verify your e-mail address',
    kind: 'email_verification',
    link,
    text: [
      'An account was created with this e-mail address.',
      '',
      `Open this link within 24 hours to confirm that the address is yours: ${link}`,
      '',
      `Verification token: ${token}`,
      '',
      'If you did not sign up, ignore this message; the address stays unverified.',
    ].join('\n'),
  });
}

/** Mails a verification link after the reply (signup): the token is made and the mail written in the background. */
export function queueVerificationMail(user: Pick<UserModel, 'id' | 'email'>): void {
  runInBackground('email_verification_mail', () => sendVerificationMail(user));
}

/** A new link for an unverified account; the same reply whether or not there is one, its mail written after the reply. */
export async function resendVerification(input: ResendVerificationInput): Promise<ResendVerificationResponse> {
  const user = await UserModel.findOne({ where: { email: input.email.trim() } });
  if (user && !user.is_suspended && !user.email_verified_at) queueVerificationMail(user);
  return { ...RESEND_REPLY };
}

/**
 * Spends a verification token and stamps the address as verified (the first
 * verification's time is kept). Unknown or spent → 401 token_error, expired →
 * 401 expired_signature_error; the user's other open verification tokens are
 * spent with it.
 */
export async function verifyEmail(input: VerifyEmailInput): Promise<VerifyEmailResponse> {
  const row = await findMailedToken('email_verification', input.token);
  if (row.expires_at.getTime() <= Date.now()) throw expiredMailedToken('email_verification');
  const user = await UserModel.findByPk(row.user_id);
  if (!user) throw invalidMailedToken('email_verification');
  assertActive(user);
  await database().transaction(async (transaction) => {
    await spendMailedToken(row, transaction);
    await UserModel.update({ email_verified_at: database().literal('COALESCE(email_verified_at, now())') }, { where: { id: user.id }, transaction });
  });
  await user.reload();
  return { status: 'verified', email_address: user.email, email_verified_at: user.email_verified_at! };
}

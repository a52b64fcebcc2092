import { MailOutboxModel, PasswordResetTokenModel } from '../../models';
import { drainBackground } from '../../src/core/background';
import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';

/** The newest outbox mails of an address (SMTP_URL is unset in tests), once mail sent after the reply is written. */
export async function outboxOf(address: string): Promise<MailOutboxModel[]> {
  await drainBackground();
  return MailOutboxModel.findAll({ where: { to_address: address }, order: [['created_at', 'DESC'], ['id', 'DESC']] });
}

/** Asks for a reset mail through the API and returns the token read from the outbox. */
export async function requestResetToken(api: TestApp, email: string): Promise<string> {
  const res = await rest(api, 'POST', '/auth/forgot-password', { body: { email } });
  if (res.status !== 202) throw new Error(`forgot-password answered ${res.status}`);
  const mail = (await outboxOf(email)).find((row) => row.kind === 'password_reset');
  const match = /Reset token: (\S+)/.exec(mail?.body_text ?? '');
  if (!match) throw new Error(`no reset mail for ${email}`);
  return match[1];
}

/** Moves every open token of a user (reset and verification) one second into the past. */
export async function expireResetTokens(userId: string): Promise<void> {
  await PasswordResetTokenModel.update({ expires_at: new Date(Date.now() - 1000) }, { where: { user_id: userId } });
}

/** The token of the newest verification mail of an address (signup and resend-verification write one after their reply). */
export async function verificationToken(email: string): Promise<string> {
  const mail = (await outboxOf(email)).find((row) => row.kind === 'email_verification');
  const match = /Verification token: (\S+)/.exec(mail?.body_text ?? '');
  if (!match) throw new Error(`no verification mail for ${email}`);
  return match[1];
}

import nodemailer, { type Transporter } from 'nodemailer';
import { MailOutboxModel } from '../../../models';
import { config } from '../../config/config';
import { logger } from '../../config/logger';

/** One outgoing mail. `link` is the action link, logged in development. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  kind: string;
  link?: string;
}

let transport: { url: string; transporter: Transporter } | undefined;

function smtpTransport(url: string): Transporter {
  if (transport?.url !== url) transport = { url, transporter: nodemailer.createTransport(url) };
  return transport.transporter;
}

/** What the outbox keeps of a mail in production: its action links carry secrets (reset and verification tokens). */
export const WITHHELD_BODY = '[body not kept: NODE_ENV=production and SMTP_URL is not set, so this mail was not delivered]';

/**
 * Delivers a mail: through SMTP when SMTP_URL is set (failures are logged as
 * mail_error), otherwise into the `mail_outbox` table plus a log line with the
 * link outside production, so a developer can read it. In production without
 * SMTP the outbox keeps only the metadata (to, subject, kind), never the body
 * with its token, and the log line says the mail went nowhere. Callers that
 * must not reveal anything through timing run this in the background.
 */
export async function queueMail(message: MailMessage): Promise<void> {
  const { SMTP_URL, MAIL_FROM } = config();
  if (SMTP_URL) {
    try {
      await smtpTransport(SMTP_URL).sendMail({ from: MAIL_FROM, to: message.to, subject: message.subject, text: message.text });
    } catch (error) {
      logger.error({ err: error, type: 'mail_error', kind: message.kind }, 'mail delivery failed');
    }
    return;
  }
  const production = config().NODE_ENV === 'production';
  await MailOutboxModel.create({ to_address: message.to, subject: message.subject, body_text: production ? WITHHELD_BODY : message.text, kind: message.kind });
  if (production) {
    logger.warn({ mail_to: message.to, subject: message.subject, kind: message.kind }, 'mail not delivered (SMTP_URL is not set); only its metadata is kept');
    return;
  }
  // The link carries a secret: it is logged for developers, never in production.
  logger.info({ mail_to: message.to, subject: message.subject, kind: message.kind, link: message.link }, 'mail written to the outbox (SMTP_URL is not set)');
}

/** An absolute link to `path` of this service for a mail: under PUBLIC_URL, else the local address. */
export function publicLink(path: string): string {
  const base = (config().PUBLIC_URL ?? `http://localhost:${config().PORT}`).replace(/\/+$/, '');
  return `${base}${path}`;
}

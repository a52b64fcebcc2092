import nodemailer, { type Transporter } from 'nodemailer';
import { MailOutboxModel } from '../../../models';
import { config } from '../../config/config';
import { logger } from '../../core/logger';

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

/**
 * Hands a mail over for delivery. With SMTP_URL set it is sent through SMTP
 * in the background (the caller's reply time does not depend on the mail
 * server; failures are logged as mail_error). Without SMTP_URL it is written
 * to the `mail_outbox` table and logged, so a developer can read the link.
 */
export async function queueMail(message: MailMessage): Promise<void> {
  const { SMTP_URL, MAIL_FROM } = config();
  if (SMTP_URL) {
    void smtpTransport(SMTP_URL)
      .sendMail({ from: MAIL_FROM, to: message.to, subject: message.subject, text: message.text })
      .catch((error: unknown) => {
        logger.error({ err: error, type: 'mail_error', kind: message.kind }, 'mail delivery failed');
      });
    return;
  }
  await MailOutboxModel.create({ to_address: message.to, subject: message.subject, body_text: message.text, kind: message.kind });
  logger.info(
    { mail_to: message.to, subject: message.subject, kind: message.kind, link: message.link },
    'mail written to the outbox (SMTP_URL is not set)',
  );
}

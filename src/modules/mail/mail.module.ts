import { MailOutboxModel } from '../../../models';
import type { ErrorTypeNames } from '../../core/errors';
import type { AppModule } from '../../core/module';

/** Outgoing mail: SMTP when configured, else the mail_outbox table. No API of its own. */
const ERROR_TYPES = ['mail_error'] as const;

export const mailModule: AppModule = {
  name: 'mail',
  models: [MailOutboxModel],
  errorTypes: ERROR_TYPES,
};

declare module '../../core/errors/app-error' {
  interface ErrorTypeRegistry extends ErrorTypeNames<typeof ERROR_TYPES> {}
}

import { PasswordResetTokenModel, UserModel } from '../../../models';
import type { ErrorTypeNames } from '../../core/errors';
import type { AppModule } from '../../core/module';
import { createAccountLoaders } from './accounts.loaders';
import { AccountResolver } from './accounts.resolver';
import { deviceLoginForm, deviceLoginPage } from './device-login.page';
import { DeviceLoginResolver } from './device-login.resolver';
import { jwtAuthenticator } from './jwt';

/** Users: signup, login, password reset, the access tokens (JWT) that authenticate them. */
const ERROR_TYPES = ['expired_signature_error', 'invalid_username_error', 'user_verification_error'] as const;

export const accountsModule: AppModule = {
  name: 'accounts',
  resolvers: [AccountResolver, DeviceLoginResolver],
  models: [UserModel, PasswordResetTokenModel],
  loaders: createAccountLoaders,
  errorTypes: ERROR_TYPES,
  authenticators: [jwtAuthenticator],
  bodyRoutes: [deviceLoginPage, deviceLoginForm],
};

declare module '../../core/errors/app-error' {
  interface ErrorTypeRegistry extends ErrorTypeNames<typeof ERROR_TYPES> {}
}

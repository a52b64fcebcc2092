import { ApiKeyModel } from '../../../models';
import type { AppModule } from '../../core/module';
import { apiKeyAuthenticator } from './api-keys.auth';
import { ApiKeyResolver } from './api-keys.resolver';

/** API keys: created and revoked by their user, and an authenticator for `apk_…` credentials. */
export const apiKeysModule: AppModule = {
  name: 'api-keys',
  resolvers: [ApiKeyResolver],
  models: [ApiKeyModel],
  authenticators: [apiKeyAuthenticator],
};

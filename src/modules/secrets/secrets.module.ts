import type { AppModule } from '../../core/module';
import { SecretResolver } from './secrets.resolver';

/** User secrets: per-user, named like environment variables, sealed at rest, shown masked (README.md). */
export const secretsModule: AppModule = {
  name: 'secrets',
  resolvers: [SecretResolver],
};

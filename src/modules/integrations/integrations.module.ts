import { ChatIntegrationModel } from '../../../models';
import { defineScopes, OWNER_ONLY, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { ChatIntegrationResolver } from './chat-integration.resolver';

const SCOPES = defineScopes({
  'integrations:manage': { roles: OWNER_ONLY, orgWide: true },
});

/** Integrations of an organization (the chat integration). */
export const integrationsModule: AppModule = {
  name: 'integrations',
  resolvers: [ChatIntegrationResolver],
  models: [ChatIntegrationModel],
  scopes: SCOPES,
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

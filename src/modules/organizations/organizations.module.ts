import { OrganizationModel } from '../../../models';
import { ALL_ROLES, defineScopes, OWNER_ONLY, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { createOrganizationLoaders } from './organizations.loaders';
import { OrganizationResolver } from './organizations.resolver';

const SCOPES = defineScopes({
  'org:read': { roles: ALL_ROLES },
  'org:manage': { roles: OWNER_ONLY, orgWide: true },
});

/** Organizations: the caller's organizations and their settings and limits. */
export const organizationsModule: AppModule = {
  name: 'organizations',
  resolvers: [OrganizationResolver],
  models: [OrganizationModel],
  loaders: createOrganizationLoaders,
  scopes: SCOPES,
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}

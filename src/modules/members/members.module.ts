import { InvitationModel, MembershipModel } from '../../../models';
import { ALL_ROLES, defineScopes, OWNER_ONLY, type ScopeNames } from '../../core/authz/scopes';
import type { ErrorTypeNames } from '../../core/errors';
import type { AppModule } from '../../core/module';
import { InvitationResolver } from './invitations.resolver';
import { MemberResolver } from './members.resolver';

const SCOPES = defineScopes({
  'members:read': { roles: ALL_ROLES },
  'members:manage': { roles: OWNER_ONLY, orgWide: true },
});
const ERROR_TYPES = ['member_limit_exceeded_error'] as const;

/**
 * Memberships: who belongs to an organization, with which role; and the
 * invitations through which an account becomes a member (decisions.md §3).
 */
export const membersModule: AppModule = {
  name: 'members',
  resolvers: [MemberResolver, InvitationResolver],
  models: [MembershipModel, InvitationModel],
  scopes: SCOPES,
  errorTypes: ERROR_TYPES,
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}
declare module '../../core/errors/app-error' {
  interface ErrorTypeRegistry extends ErrorTypeNames<typeof ERROR_TYPES> {}
}

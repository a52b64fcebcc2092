import type { Role } from '../../../models';

/** Permission scopes, `resource:action`. Roles are sets of scopes. */
export const SCOPES = [
  'org:read',
  'org:manage',
  'members:read',
  'members:manage',
  'integrations:manage',
  'workspaces:create',
  'workspaces:update',
  'projects:write',
  'resources:write',
  'catalog:publish',
] as const;

export type Scope = (typeof SCOPES)[number];

const READ_SCOPES: Scope[] = ['org:read', 'members:read'];
const WRITE_SCOPES: Scope[] = ['workspaces:create', 'projects:write', 'resources:write', 'catalog:publish'];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  contributor: [...READ_SCOPES, ...WRITE_SCOPES],
  reader: READ_SCOPES,
};

export function roleHasScope(role: Role, scope: Scope): boolean {
  return ROLE_SCOPES[role].includes(scope);
}

import type { Role } from '../../../models';

/**
 * Permission scopes, `resource:action`. Each module declares the scopes it
 * owns in its descriptor (which roles hold them) and adds their names to this
 * interface, so `Scope` is the union of every module's scopes without core
 * naming a module:
 *
 *   declare module '../../core/authz/scopes' { interface ScopeRegistry extends ScopeNames<typeof MY_SCOPES> {} }
 */
export interface ScopeRegistry {}

export type Scope = keyof ScopeRegistry & string;

export const ALL_ROLES: readonly Role[] = ['owner', 'contributor', 'reader'];
export const WRITER_ROLES: readonly Role[] = ['owner', 'contributor'];
export const OWNER_ONLY: readonly Role[] = ['owner'];

/** A module's scopes: the roles that hold each, and whether it acts on the whole organization. */
export type ScopeDefinitions = Record<string, { roles: readonly Role[]; orgWide?: boolean }>;

/** The names of a module's scope definitions, for the ScopeRegistry augmentation. */
export type ScopeNames<T extends ScopeDefinitions> = Record<keyof T & string, true>;

export function defineScopes<const T extends ScopeDefinitions>(definitions: T): T {
  return definitions;
}

/**
 * Which role holds which scope, and which scopes act on the whole
 * organization (a workspace-limited API key never gets those), built once
 * from the module registry.
 */
export interface AccessPolicy {
  scopes: readonly Scope[];
  roleHas(role: Role, scope: Scope): boolean;
  isOrgWide(scope: Scope): boolean;
}

export function buildAccessPolicy(definitions: ScopeDefinitions[]): AccessPolicy {
  const byRole = new Map<Role, Set<string>>(ALL_ROLES.map((role) => [role, new Set<string>()]));
  const orgWide = new Set<string>();
  const names: string[] = [];
  for (const group of definitions) {
    for (const [name, definition] of Object.entries(group)) {
      if (names.includes(name)) throw new Error(`Scope ${name} is declared by two modules`);
      names.push(name);
      for (const role of definition.roles) byRole.get(role)!.add(name);
      if (definition.orgWide) orgWide.add(name);
    }
  }
  return {
    scopes: names as Scope[],
    roleHas: (role, scope) => byRole.get(role)?.has(scope) ?? false,
    isOrgWide: (scope) => orgWide.has(scope),
  };
}

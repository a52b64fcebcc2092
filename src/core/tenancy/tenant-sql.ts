import type { Viewer } from '../viewer';

/**
 * The one tenant filter for SQL: rows of organizations the viewer belongs to,
 * narrowed by an API key's organization or workspace. Bind parameters use
 * Sequelize's `$name` style and are merged into the statement's own bind.
 * Loaders build it when they are created, never from the keys they receive.
 */
export interface TenantFilter {
  bind: { tenant_user: string; tenant_org?: string; tenant_ws?: string };
  /**
   * The condition on a table alias. `org` names its organization column
   * (default `organization_id`); `workspace` its workspace column (default
   * `workspace_id`), or false for tables without one.
   */
  where(alias: string, columns?: { org?: string; workspace?: string | false }): string;
}

export function tenantFilter(viewer: Viewer): TenantFilter {
  const bind: TenantFilter['bind'] = { tenant_user: viewer.user.id };
  if (viewer.apiKey?.organization_id) bind.tenant_org = viewer.apiKey.organization_id;
  if (viewer.apiKey?.workspace_id) bind.tenant_ws = viewer.apiKey.workspace_id;
  return {
    bind,
    where(alias, columns = {}) {
      const org = `${alias}.${columns.org ?? 'organization_id'}`;
      const parts = [`${org} IN (SELECT tm.organization_id FROM memberships tm WHERE tm.user_id = $tenant_user)`];
      if (bind.tenant_org) parts.push(`${org} = $tenant_org`);
      const workspace = columns.workspace ?? 'workspace_id';
      if (bind.tenant_ws && workspace !== false) parts.push(`${alias}.${workspace} = $tenant_ws`);
      return `(${parts.join(' AND ')})`;
    },
  };
}

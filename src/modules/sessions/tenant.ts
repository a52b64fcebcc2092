import type { Viewer } from '../../context/viewer';

/**
 * The viewer's tenant as a SQL condition on a table alias carrying
 * `organization_id` (and optionally `workspace_id`): organizations the viewer
 * belongs to, narrowed by an API key's organization or workspace. Loaders bind
 * it when they are created, never from the keys they receive.
 */
export interface TenantSql {
  sql: (alias: string, options?: { workspace?: boolean }) => string;
  bind: Record<string, unknown>;
}

export function viewerTenant(viewer: Viewer): TenantSql {
  const bind: Record<string, unknown> = { tenant_user: viewer.user.id };
  if (viewer.apiKey?.organization_id) bind.tenant_org = viewer.apiKey.organization_id;
  if (viewer.apiKey?.workspace_id) bind.tenant_ws = viewer.apiKey.workspace_id;
  return {
    bind,
    sql: (alias, options = {}) => {
      const parts = [`${alias}.organization_id IN (SELECT tm.organization_id FROM memberships tm WHERE tm.user_id = $tenant_user)`];
      if (bind.tenant_org) parts.push(`${alias}.organization_id = $tenant_org`);
      if (bind.tenant_ws && options.workspace !== false) parts.push(`${alias}.workspace_id = $tenant_ws`);
      return parts.join(' AND ');
    },
  };
}

/** Sessions the viewer may read: own ones, and shared ones of the workspace. */
export function visibleSql(alias: string): string {
  return `(${alias}.user_id = $tenant_user OR ${alias}.visibility = 'workspace')`;
}

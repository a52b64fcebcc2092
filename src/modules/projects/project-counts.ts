import { QueryTypes } from 'sequelize';
import { database } from '../../db/database';
import type { Viewer } from '../../context/viewer';
import type { ProjectResourceCounts } from './projects.types';

export const ZERO_COUNTS: ProjectResourceCounts = { sessions: 0, evaluations: 0, airt_assessments: 0 };

/** Tenant bound into a statement: the viewer's organizations (and API key limits). */
export interface TenantBinding {
  sql: string;
  replacements: Record<string, unknown>;
}

/**
 * Restricts `p` (a projects alias) to what the viewer may see: organizations
 * they belong to, narrowed by an API key's organization or workspace.
 */
export function viewerProjectTenant(viewer: Viewer | null): TenantBinding | null {
  if (!viewer) return null;
  const parts = ['p.organization_id IN (SELECT m.organization_id FROM memberships m WHERE m.user_id = :tenant_user)'];
  const replacements: Record<string, unknown> = { tenant_user: viewer.user.id };
  if (viewer.apiKey?.organization_id) {
    parts.push('p.organization_id = :tenant_org');
    replacements.tenant_org = viewer.apiKey.organization_id;
  }
  if (viewer.apiKey?.workspace_id) {
    parts.push('p.workspace_id = :tenant_ws');
    replacements.tenant_ws = viewer.apiKey.workspace_id;
  }
  return { sql: parts.join(' AND '), replacements };
}

/**
 * Counts every project's resources in one statement; projects outside the
 * tenant are left out (callers treat them as zeros). Evaluations and red-team
 * assessments have no tables yet: when those domains land, each adds its
 * sub-select here and its count stops being a constant 0.
 */
export async function countProjectResources(
  projectIds: readonly string[],
  tenant: TenantBinding,
): Promise<Map<string, ProjectResourceCounts>> {
  const out = new Map<string, ProjectResourceCounts>();
  if (!projectIds.length) return out;
  const rows = await database().query<{ id: string; sessions: string }>(
    `SELECT p.id, (SELECT count(*) FROM sessions r WHERE r.project_id = p.id) AS sessions
       FROM projects p WHERE p.id IN (:ids) AND ${tenant.sql}`,
    { replacements: { ...tenant.replacements, ids: [...projectIds] }, type: QueryTypes.SELECT },
  );
  for (const row of rows) out.set(row.id, { sessions: Number(row.sessions), evaluations: 0, airt_assessments: 0 });
  return out;
}

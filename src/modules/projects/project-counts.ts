import { QueryTypes } from 'sequelize';
import type { ProjectCountSource } from '../../core/module';
import type { TenantFilter } from '../../core/tenancy/tenant-sql';
import { database } from '../../db/database';
import type { ProjectResourceCounts } from './projects.types';

export const ZERO_COUNTS: ProjectResourceCounts = { sessions: 0, evaluations: 0, airt_assessments: 0 };

/**
 * Counts every project's resources in one statement, one sub-select per
 * source that a module contributes in its descriptor (`projectCounts`);
 * fields without a source stay 0. Projects outside the tenant are left out
 * (callers treat them as zeros).
 */
export async function countProjectResources(
  projectIds: readonly string[],
  tenant: TenantFilter,
  sources: readonly ProjectCountSource[],
): Promise<Map<string, ProjectResourceCounts>> {
  const out = new Map<string, ProjectResourceCounts>();
  if (!projectIds.length) return out;
  const columns = sources.map((source, index) => `, (${source.sql}) AS c${index}`).join('');
  const rows = await database().query<Record<string, string>>(
    `SELECT p.id${columns} FROM projects p WHERE p.id = ANY($ids::uuid[]) AND ${tenant.where('p')}`,
    { bind: { ...tenant.bind, ids: [...projectIds] }, type: QueryTypes.SELECT },
  );
  for (const row of rows) {
    const counts = { ...ZERO_COUNTS } as Record<string, number>;
    sources.forEach((source, index) => {
      counts[source.field] += Number(row[`c${index}`]);
    });
    out.set(row.id, counts as unknown as ProjectResourceCounts);
  }
  return out;
}

import type { Transaction } from 'sequelize';
import type { ProjectCountSource } from '../../core/module';
import type { TenantFilter } from '../../core/tenancy/tenant-sql';
import { plainQuery } from '../../db/hot';
import type { ProjectResourceCounts } from './projects.types';

/** Every count of the sources at 0. */
export function zeroCounts(sources: readonly ProjectCountSource[]): ProjectResourceCounts {
  return Object.fromEntries(sources.map((source) => [source.field, 0])) as unknown as ProjectResourceCounts;
}

/** The nouns of the sources a project still holds ("sessions and workflow runs"); empty when it holds none. */
export function heldResources(counts: ProjectResourceCounts, sources: readonly ProjectCountSource[]): string[] {
  return sources.filter((source) => (counts as unknown as Record<string, number>)[source.field] > 0).map((source) => source.noun);
}

/**
 * Counts every project's resources in one statement, one sub-select per
 * source that a module contributes in its descriptor (`projectCounts`).
 * Projects outside the tenant are left out (callers treat them as zeros).
 * With `transaction`, on its connection.
 */
export async function countProjectResources(
  projectIds: readonly string[],
  tenant: TenantFilter,
  sources: readonly ProjectCountSource[],
  transaction?: Transaction,
): Promise<Map<string, ProjectResourceCounts>> {
  const out = new Map<string, ProjectResourceCounts>();
  if (!projectIds.length) return out;
  const columns = sources.map((source, index) => `, (${source.sql}) AS c${index}`).join('');
  const rows = await plainQuery<Record<string, string>>(
    `SELECT p.id${columns} FROM projects p WHERE p.id = ANY($ids::uuid[]) AND ${tenant.where('p')}`,
    { ...tenant.bind, ids: [...projectIds] },
    { transaction },
  );
  for (const row of rows) {
    const counts = zeroCounts(sources) as unknown as Record<string, number>;
    sources.forEach((source, index) => {
      counts[source.field] += Number(row[`c${index}`]);
    });
    out.set(row.id, counts as unknown as ProjectResourceCounts);
  }
  return out;
}

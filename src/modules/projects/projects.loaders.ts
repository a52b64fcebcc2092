import DataLoader from 'dataloader';
import type { Transaction } from 'sequelize';
import type { ProjectModel, RecordOf } from '../../../models';
import type { LoaderDeps } from '../../core/module';
import { MAX_LIST_PAGE } from '../../core/pagination';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';
import { countProjectResources, heldResources, zeroCounts } from './project-counts';
import type { ProjectResourceCounts } from './projects.types';

/**
 * Project loaders, bound to the viewer's tenant when created: one SQL
 * statement per batch, rows of other organizations never returned.
 */
export function createProjectLoaders(viewer: Viewer | null, deps: LoaderDeps) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    projectResourceCounts: new DataLoader<string, ProjectResourceCounts>(async (ids) => {
      if (!tenant) return ids.map(() => zeroCounts(deps.projectCounts));
      const counts = await countProjectResources(ids, tenant, deps.projectCounts);
      return ids.map((id) => counts.get(id) ?? zeroCounts(deps.projectCounts));
    }),
    /**
     * What a project still holds, by the sources' nouns (the project-delete
     * check), read on `transaction`'s connection: a delete holding the
     * project's row lock must not wait for a second connection, which the
     * writes queued behind that lock may hold every one of.
     */
    async projectHeldResources(id: string, transaction: Transaction): Promise<string[]> {
      if (!tenant) return [];
      const counts = await countProjectResources([id], tenant, deps.projectCounts, transaction);
      return heldResources(counts.get(id) ?? zeroCounts(deps.projectCounts), deps.projectCounts);
    },
    projectsByWorkspace: new DataLoader<string, RecordOf<ProjectModel>[]>(async (workspaceIds) => {
      if (!tenant) return workspaceIds.map(() => []);
      // At most MAX_LIST_PAGE projects per workspace (workspace.projects takes a limit up to it).
      const rows = await plainQuery<RecordOf<ProjectModel>>(
        `SELECT p.* FROM (
           SELECT x.*, row_number() OVER (PARTITION BY x.workspace_id ORDER BY x.is_default DESC, x.created_at ASC, x.id ASC) AS position
             FROM projects x WHERE x.workspace_id = ANY($workspace_ids::uuid[]) AND ${tenant.where('x')}) p
          WHERE p.position <= $per_workspace
          ORDER BY p.is_default DESC, p.created_at ASC, p.id ASC`,
        { ...tenant.bind, workspace_ids: [...workspaceIds], per_workspace: MAX_LIST_PAGE },
      );
      const byWorkspace = new Map<string, RecordOf<ProjectModel>[]>();
      for (const row of rows) byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), row]);
      return workspaceIds.map((id) => byWorkspace.get(id) ?? []);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createProjectLoaders> {}
}

import DataLoader from 'dataloader';
import { ProjectModel } from '../../../models';
import { database } from '../../db/database';
import type { Viewer } from '../../context/viewer';
import { countProjectResources, viewerProjectTenant, ZERO_COUNTS } from './project-counts';
import type { ProjectResourceCounts } from './projects.types';

/**
 * Project loaders, bound to the viewer's tenant when created: one SQL
 * statement per batch, rows of other organizations never returned.
 */
export function createProjectLoaders(viewer: Viewer | null) {
  const tenant = viewerProjectTenant(viewer);
  return {
    projectResourceCounts: new DataLoader<string, ProjectResourceCounts>(async (ids) => {
      if (!tenant) return ids.map(() => ({ ...ZERO_COUNTS }));
      const counts = await countProjectResources(ids, tenant);
      return ids.map((id) => counts.get(id) ?? { ...ZERO_COUNTS });
    }),
    projectsByWorkspace: new DataLoader<string, ProjectModel[]>(async (workspaceIds) => {
      if (!tenant) return workspaceIds.map(() => []);
      const rows = await database().query(
        `SELECT p.* FROM projects p WHERE p.workspace_id IN (:workspace_ids) AND ${tenant.sql}
          ORDER BY p.is_default DESC, p.created_at ASC, p.id ASC`,
        { replacements: { ...tenant.replacements, workspace_ids: [...workspaceIds] }, model: ProjectModel, mapToModel: true },
      );
      const byWorkspace = new Map<string, ProjectModel[]>();
      for (const row of rows) byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), row]);
      return workspaceIds.map((id) => byWorkspace.get(id) ?? []);
    }),
  };
}

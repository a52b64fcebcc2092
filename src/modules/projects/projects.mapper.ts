import type { ProjectModel, RecordOf } from '../../../models';
import type { ProjectResponse } from './projects.types';

export function toProject(row: RecordOf<ProjectModel>): ProjectResponse {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    workspace_id: row.workspace_id,
    is_default: row.is_default,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

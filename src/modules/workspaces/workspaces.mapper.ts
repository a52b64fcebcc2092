import type { WorkspaceRecord } from '../../../models';
import type { WorkspaceResponse } from './workspaces.types';

/** Row → GraphQL type. org_name and project_count resolve through loaders. */
export function toWorkspace(row: WorkspaceRecord): WorkspaceResponse {
  return {
    id: row.id,
    org_id: row.organization_id,
    key: row.key,
    name: row.name,
    description: row.description,
    is_active: row.is_active,
    is_default: row.is_default,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

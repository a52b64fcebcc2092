import { QueryTypes } from 'sequelize';
import { ProjectModel } from '../../models';
import { database } from '../../src/db/database';
import { randomKey } from './accounts';

/** A non-default project, created directly in the database. */
export async function createProjectRow(
  orgKey: string,
  workspaceKey = 'default',
  overrides: { key?: string; name?: string } = {},
): Promise<ProjectModel> {
  const [workspace] = await database().query<{ id: string; organization_id: string }>(
    'SELECT w.id, w.organization_id FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.key = :org AND w.key = :ws',
    { replacements: { org: orgKey, ws: workspaceKey }, type: QueryTypes.SELECT },
  );
  return ProjectModel.create({
    organization_id: workspace.organization_id,
    workspace_id: workspace.id,
    key: overrides.key ?? randomKey('p'),
    name: overrides.name ?? 'Test project',
    is_default: false,
  });
}

/** Sessions in a project, inserted directly (count and non-empty tests). */
export async function addProjectSessions(projectId: string, count = 1): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await database().query(
      `INSERT INTO sessions (id, organization_id, workspace_id, user_id, project_id, model, visibility, origin)
       SELECT gen_random_uuid(), p.organization_id, p.workspace_id, w.created_by, p.id, 'test-model', 'private', 'user'
         FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE p.id = :projectId`,
      { replacements: { projectId } },
    );
  }
}

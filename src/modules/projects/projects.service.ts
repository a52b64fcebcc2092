import { isUuid } from '../../core/scalars';
import type { Transaction } from 'sequelize';
import { ProjectModel } from '../../../models';
import { requireScope, resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { AlreadyExistsError, ConflictError, InvalidError, NotFoundError } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { pageWindow, type ListPageArgs } from '../../core/pagination';
import { database } from '../../db/database';
import type { CreateProjectInput } from './projects.inputs';

/** A workspace given as its id, a row, or a WorkspaceScope. */
export type WorkspaceRef = string | { id: string } | { workspace: { id: string } };

function workspaceIdOf(ref: WorkspaceRef): string {
  if (typeof ref === 'string') return ref;
  return 'workspace' in ref ? ref.workspace.id : ref.id;
}

/**
 * The project a workspace resource belongs to: the given project when it is in
 * the workspace (otherwise 404, also for another tenant's id), or the
 * workspace's default project when no id is given. For other modules.
 */
export async function resolveProject(
  workspace: WorkspaceRef,
  projectId: string | null | undefined,
  options: { transaction?: Transaction } = {},
): Promise<ProjectModel> {
  const workspaceId = workspaceIdOf(workspace);
  const where = projectId ? { workspace_id: workspaceId, id: projectId } : { workspace_id: workspaceId, is_default: true };
  const project = await ProjectModel.findOne({ where, transaction: options.transaction });
  if (!project) throw new NotFoundError('Project');
  return project;
}

export async function listProjects(ctx: AppContext, orgKey: string, workspaceKey: string, page: ListPageArgs = {}): Promise<ProjectModel[]> {
  const { workspace } = await resolveWorkspace(ctx, orgKey, workspaceKey);
  return ProjectModel.findAll({
    where: { workspace_id: workspace.id },
    order: [['is_default', 'DESC'], ['created_at', 'ASC'], ['id', 'ASC']],
    ...pageWindow(page),
  });
}

async function findProject(workspaceId: string, key: string, transaction?: Transaction): Promise<ProjectModel> {
  const project = await ProjectModel.findOne({ where: { workspace_id: workspaceId, key }, transaction });
  if (!project) throw new NotFoundError('Project');
  return project;
}

/** A project of the workspace named in a path by its key or its id (`{project}` of the red-team routes), or 404. */
export function projectByKeyOrId(workspace: WorkspaceRef, ref: string): Promise<ProjectModel> {
  return isUuid(ref) ? resolveProject(workspace, ref) : findProject(workspaceIdOf(workspace), ref);
}

export async function getProject(ctx: AppContext, orgKey: string, workspaceKey: string, projectKey: string): Promise<ProjectModel> {
  const { workspace } = await resolveWorkspace(ctx, orgKey, workspaceKey);
  return findProject(workspace.id, projectKey);
}

export async function createProject(ctx: AppContext, orgKey: string, workspaceKey: string, input: CreateProjectInput): Promise<ProjectModel> {
  const access = await resolveWorkspace(ctx, orgKey, workspaceKey);
  requireScope(access, 'projects:write');
  const { workspace } = access;
  const taken = await ProjectModel.findOne({ where: { workspace_id: workspace.id, key: input.key } });
  if (taken) throw new AlreadyExistsError(`A project with key '${input.key}' already exists in this workspace`);
  // A concurrent insert of the same key still ends as 409 through the unique index.
  const project = await ProjectModel.create({
    organization_id: workspace.organization_id,
    workspace_id: workspace.id,
    key: input.key,
    name: input.name,
    description: input.description ?? null,
    is_default: false,
    created_by: access.viewer.user.id,
  });
  ctx.loaders.workspaceProjectCount.clear(workspace.id);
  ctx.loaders.projectsByWorkspace.clear(workspace.id);
  return project;
}

export async function deleteProject(
  ctx: AppContext,
  orgKey: string,
  workspaceKey: string,
  projectKey: string,
): Promise<{ id: string; key: string; deleted: true }> {
  const access = await resolveWorkspace(ctx, orgKey, workspaceKey);
  const { workspace } = access;
  await findProject(workspace.id, projectKey);
  requireScope(access, 'projects:write');
  const deleted = await database().transaction(async (transaction) => {
    const project = await ProjectModel.findOne({
      where: { workspace_id: workspace.id, key: projectKey },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!project) throw new NotFoundError('Project');
    if (project.is_default) throw new InvalidError('The default project of a workspace cannot be deleted');
    // Every module's resources of the project count here (its descriptor's projectCounts), so none is left dangling.
    const held = await ctx.loaders.projectHeldResources(project.id, transaction);
    if (held.length) throw new ConflictError(`The project still holds ${held.join(', ')}; remove them first`);
    await project.destroy({ transaction });
    return { id: project.id, key: project.key, deleted: true as const };
  });
  ctx.loaders.workspaceProjectCount.clear(workspace.id);
  ctx.loaders.projectsByWorkspace.clear(workspace.id);
  return deleted;
}

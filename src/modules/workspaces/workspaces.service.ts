import type { Transaction } from 'sequelize';
import { ProjectModel, WorkspaceModel } from '../../../models';
import { workspaceAccess, orgAccess, requireScope, can, keyAllows } from '../../core/authz/access';
import { roleHasScope } from '../../core/authz/scopes';
import { AlreadyExistsError, InvalidError, ForbiddenError } from '../../core/errors';
import { database } from '../../db/database';
import type { AppContext } from '../../context/context';
import type { CreateWorkspaceInput, UpdateWorkspaceInput } from './workspaces.inputs';

/**
 * Creates a workspace and its default project in the caller's transaction.
 * Used by workspace creation and by signup (the personal default workspace).
 */
export async function insertWorkspace(
  values: { organization_id: string; key: string; name: string; description?: string | null; is_default?: boolean; created_by: string | null },
  transaction: Transaction,
): Promise<WorkspaceModel> {
  const workspace = await WorkspaceModel.create(
    { ...values, description: values.description ?? null, is_default: values.is_default ?? false },
    { transaction },
  );
  await ProjectModel.create(
    {
      organization_id: values.organization_id,
      workspace_id: workspace.id,
      key: 'default',
      name: 'Default',
      is_default: true,
      created_by: values.created_by,
    },
    { transaction },
  );
  return workspace;
}

async function assertKeyFree(organizationId: string, key: string, transaction?: Transaction): Promise<void> {
  const taken = await WorkspaceModel.findOne({ where: { organization_id: organizationId, key }, transaction });
  if (taken) throw new AlreadyExistsError(`A workspace with key '${key}' already exists in this organization`);
}

export async function createWorkspace(ctx: AppContext, orgKey: string, input: CreateWorkspaceInput): Promise<WorkspaceModel> {
  const access = await orgAccess(ctx, orgKey);
  requireScope(access, 'workspaces:create');
  if (access.viewer.apiKey?.workspace_id) throw new ForbiddenError('A workspace-scoped API key cannot create workspaces');
  return database().transaction(async (transaction) => {
    await assertKeyFree(access.org.id, input.key, transaction);
    return insertWorkspace(
      { organization_id: access.org.id, key: input.key, name: input.name, description: input.description, created_by: access.viewer.user.id },
      transaction,
    );
  });
}

export async function updateWorkspace(
  ctx: AppContext,
  orgKey: string,
  workspaceKey: string,
  input: UpdateWorkspaceInput,
): Promise<WorkspaceModel> {
  const access = await workspaceAccess(ctx, orgKey, workspaceKey);
  const { workspace } = access;
  // The creator may update it too, while they may still write (not a reader) and their key allows it.
  const isCreator =
    workspace.created_by === access.viewer.user.id && roleHasScope(access.role, 'workspaces:create') && keyAllows(access.viewer, 'workspaces:update');
  if (!can(access, 'workspaces:update') && !isCreator) {
    throw new ForbiddenError('Only an organization owner or the workspace creator can update it');
  }
  // Absent fields stay; null clears the description and leaves the others.
  if (input.is_active === false && workspace.is_default) {
    throw new InvalidError('The default workspace cannot be deactivated');
  }
  if (input.key != null && input.key !== workspace.key) await assertKeyFree(workspace.organization_id, input.key);
  if (input.key != null) workspace.key = input.key;
  if (input.name != null) workspace.name = input.name;
  if (input.is_active != null) workspace.is_active = input.is_active;
  if (input.description !== undefined) workspace.description = input.description;
  await workspace.save();
  return workspace;
}

export async function getWorkspace(ctx: AppContext, orgKey: string, workspaceKey: string): Promise<WorkspaceModel> {
  return (await workspaceAccess(ctx, orgKey, workspaceKey)).workspace;
}

export async function listWorkspaces(ctx: AppContext, orgKey: string): Promise<WorkspaceModel[]> {
  const access = await orgAccess(ctx, orgKey);
  const limitedTo = access.viewer.apiKey?.workspace_id;
  return WorkspaceModel.findAll({
    where: limitedTo ? { organization_id: access.org.id, id: limitedTo } : { organization_id: access.org.id },
    order: [['is_default', 'DESC'], ['created_at', 'ASC'], ['id', 'ASC']],
  });
}

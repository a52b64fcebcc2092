import type { Transaction } from 'sequelize';
import { ProjectModel, WorkspaceModel, type RecordOf, type WorkspaceRecord } from '../../../models';
import { pageWindow, type ListPageArgs } from '../../core/pagination';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import { can, keyAllows, requireScope, resolveOrg, resolveWorkspace, roleAllows } from '../../core/tenancy/tenant-scope';
import { AlreadyExistsError, ForbiddenError, InvalidError } from '../../core/errors';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import type { AppContext } from '../../core/context';
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
  const access = await resolveOrg(ctx, orgKey);
  requireScope(access, 'workspaces:create');
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
  const access = await resolveWorkspace(ctx, orgKey, workspaceKey);
  const workspace = WorkspaceModel.build(access.workspace as never, { isNewRecord: false, raw: true });
  // The creator may update it too, while they may still write (not a reader) and their key allows it.
  const isCreator =
    workspace.created_by === access.viewer.user.id && roleAllows(access, 'workspaces:create') && keyAllows(access.viewer, access.policy, 'workspaces:update');
  if (!can(access, 'workspaces:update') && !isCreator) {
    throw new ForbiddenError('Only an organization owner or the workspace creator can update it');
  }
  // Absent fields stay; null clears the description and leaves the others.
  if (input.is_active === false && workspace.is_default) {
    throw new InvalidError('The default workspace cannot be deactivated');
  }
  if (input.key != null && input.key !== workspace.key) {
    // Besides updating it (above): an organization-wide act, which a key limited to the workspace may not do.
    requireScope(access, 'workspaces:rekey');
    await assertKeyFree(workspace.organization_id, input.key);
  }
  if (input.key != null) workspace.key = input.key;
  if (input.name != null) workspace.name = input.name;
  if (input.is_active != null) workspace.is_active = input.is_active;
  if (input.description !== undefined) workspace.description = input.description;
  await workspace.save();
  return workspace;
}

export async function getWorkspace(ctx: AppContext, orgKey: string, workspaceKey: string): Promise<WorkspaceRecord> {
  return (await resolveWorkspace(ctx, orgKey, workspaceKey)).workspace;
}

export async function listWorkspaces(ctx: AppContext, orgKey: string, page: ListPageArgs = {}): Promise<RecordOf<WorkspaceModel>[]> {
  const access = await resolveOrg(ctx, orgKey);
  const tenant = tenantFilter(access.viewer);
  return plainQuery<RecordOf<WorkspaceModel>>(
    `SELECT w.* FROM workspaces w
      WHERE w.organization_id = $org_id AND ${tenant.where('w', { workspace: 'id' })}
      ORDER BY w.is_default DESC, w.created_at ASC, w.id ASC
      LIMIT $limit OFFSET $offset`,
    { ...tenant.bind, ...pageWindow(page), org_id: access.org.id },
  );
}

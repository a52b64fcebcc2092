import type { Transaction, WhereOptions } from 'sequelize';
import { SessionGroupModel } from '../../../models';
import { resolveProject } from '../projects/projects.service';
import type { AppContext } from '../../core/context';
import { requireScope, resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { NotFoundError } from '../../core/errors';
import { readNewestPage } from '../../core/pagination';
import type { WorkspaceScope } from '../../core/tenancy/scope';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { GROUP_PAGE, type SessionGroupCreateRequest, type SessionGroupListArgs, type SessionGroupUpdateRequest } from './session-groups.inputs';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * running stamps started_at (once) and clears completed_at; entering a
 * terminal status from a non-terminal one (or none) stamps completed_at.
 * Repeating a terminal status, or going from one terminal status to another,
 * keeps the first completion time.
 */
function applyStatus(group: SessionGroupModel, status: string, now: Date): void {
  const previous = group.status;
  group.status = status as SessionGroupModel['status'];
  if (status === 'running') {
    group.started_at ??= now;
    group.completed_at = null;
  }
  if (TERMINAL.has(status) && !(previous && TERMINAL.has(previous))) group.completed_at = now;
}

export async function createSessionGroup(ctx: AppContext, org: string, ws: string, input: SessionGroupCreateRequest): Promise<SessionGroupModel> {
  const access = await resolveWorkspace(ctx, org, ws);
  const project = await resolveProject(access, input.project_id);
  await checkEvaluationLinks(access, input.evaluation_id, input.evaluation_item_id);
  requireScope(access, 'resources:write');
  const group = SessionGroupModel.build({
    organization_id: access.org.id,
    workspace_id: access.workspace.id,
    project_id: project.id,
    kind: input.kind,
    title: input.title ?? null,
    worker: input.worker ?? null,
    capability: input.capability ?? null,
    capability_version: input.capability_version ?? null,
    evaluation_id: input.evaluation_id ?? null,
    evaluation_item_id: input.evaluation_item_id ?? null,
    evaluation_item_attempt_id: input.evaluation_item_attempt_id ?? null,
    runtime_id: input.runtime_id ?? null,
    metadata: input.metadata ?? {},
    created_by: access.viewer.user.id,
  });
  if (input.status) applyStatus(group, input.status, new Date());
  return group.save();
}

/**
 * A group may point at an evaluation and an item of it: both must be of this
 * workspace (404 otherwise, also for another tenant's ids), and the item must
 * belong to the evaluation when both are given. One statement.
 */
async function checkEvaluationLinks(scope: WorkspaceScope, evaluationId?: string | null, itemId?: string | null): Promise<void> {
  if (!evaluationId && !itemId) return;
  const [row] = await plainQuery<{ evaluation: boolean; item: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM evaluations e WHERE e.id = $evaluation_id AND e.workspace_id = $ws) AS evaluation,
            EXISTS (SELECT 1 FROM evaluation_items i WHERE i.id = $item_id AND i.workspace_id = $ws
                      AND ($evaluation_id::uuid IS NULL OR i.evaluation_id = $evaluation_id)) AS item`,
    { ws: scope.workspace.id, evaluation_id: evaluationId ?? null, item_id: itemId ?? null },
  );
  if (evaluationId && !row.evaluation) throw new NotFoundError('Evaluation');
  if (itemId && !row.item) throw new NotFoundError('Evaluation item');
}

/** The workspace's group (404 otherwise); with a transaction, locked to its end. */
async function findGroup(access: WorkspaceScope, groupId: string, transaction?: Transaction): Promise<SessionGroupModel> {
  const group = await SessionGroupModel.findOne({ where: { id: groupId, workspace_id: access.workspace.id }, transaction, lock: transaction ? transaction.LOCK.NO_KEY_UPDATE : undefined });
  if (!group) throw new NotFoundError('Session group');
  return group;
}

export async function getSessionGroup(ctx: AppContext, org: string, ws: string, groupId: string): Promise<SessionGroupModel> {
  return findGroup(await resolveWorkspace(ctx, org, ws), groupId);
}

export async function updateSessionGroup(
  ctx: AppContext,
  org: string,
  ws: string,
  groupId: string,
  input: SessionGroupUpdateRequest,
): Promise<SessionGroupModel> {
  const access = await resolveWorkspace(ctx, org, ws);
  // The row is locked while its status moves: two updates at once apply one after the other, each from the
  // status the other left (a `running` and a `failed` racing could otherwise leave `failed` without completed_at).
  return database().transaction(async (transaction) => {
    const group = await findGroup(access, groupId, transaction);
    requireScope(access, 'resources:write');
    if (input.title !== undefined) group.title = input.title;
    if (input.status) applyStatus(group, input.status, new Date());
    group.changed('updated_at', true);
    return group.save({ transaction });
  });
}

export async function listSessionGroups(
  ctx: AppContext,
  org: string,
  ws: string,
  args: SessionGroupListArgs,
): Promise<{ groups: SessionGroupModel[]; total: number; page: number; limit: number }> {
  const access = await resolveWorkspace(ctx, org, ws);
  const page = args.page ?? 1;
  const limit = args.limit ?? GROUP_PAGE.fallback;
  const where: WhereOptions = { workspace_id: access.workspace.id };
  if (args.kind?.length) Object.assign(where, { kind: args.kind });
  if (args.status?.length) Object.assign(where, { status: args.status });
  if (args.project_id) Object.assign(where, { project_id: args.project_id });
  const { rows, total } = await readNewestPage<SessionGroupModel>(SessionGroupModel, where, page, limit);
  return { groups: rows, total, page, limit };
}

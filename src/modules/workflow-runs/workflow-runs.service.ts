import type { WhereOptions } from 'sequelize';
import { SessionGroupModel, WorkflowRunModel, type WorkflowRunStatus } from '../../../models';
import type { AppContext } from '../../core/context';
import { ConflictError, NotFoundError, validationFailure } from '../../core/errors';
import { readNewestPage } from '../../core/pagination';
import { requireScope, resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { resolveProject } from '../projects/projects.service';
import { DEFAULT_HOST_KIND, RUN_PAGE, type WorkflowRunCreateRequest, type WorkflowRunListArgs } from './workflow-runs.inputs';

/**
 * Workflow runs (spec 15, decisions §9). Status moves out of `pending` are
 * one conditional UPDATE … WHERE status = 'pending': when a start and a
 * cancel race on one run, PostgreSQL lets exactly one of them match and the
 * other finds no pending row and answers 409.
 */
export const WORKFLOW_WRITE = 'workflows:write' as const;

const FINISHED = new Set<WorkflowRunStatus>(['completed', 'failed', 'cancelled']);

export async function createWorkflowRun(
  ctx: AppContext,
  org: string,
  ws: string,
  projectId: string,
  input: WorkflowRunCreateRequest,
): Promise<WorkflowRunModel> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const project = await resolveProject(scope, projectId);
  if (input.session_group_id) {
    const group = await SessionGroupModel.findOne({ attributes: ['id', 'kind'], where: { id: input.session_group_id, workspace_id: scope.workspace.id } });
    if (!group) throw new NotFoundError('Session group');
    if (group.kind !== 'workflow_run') {
      throw validationFailure(['input', 'session_group_id'], `The session group is of kind ${group.kind}; a run links a group of kind workflow_run`, 'value_error');
    }
  }
  requireScope(scope, WORKFLOW_WRITE);
  return WorkflowRunModel.create({
    organization_id: scope.org.id,
    workspace_id: scope.workspace.id,
    project_id: project.id,
    definition_id: input.definition_id,
    runtime_id: input.runtime_id ?? null,
    session_group_id: input.session_group_id ?? null,
    host_kind: input.host_kind ?? DEFAULT_HOST_KIND,
    status: 'pending',
    title: input.title ?? null,
    created_by: scope.viewer.user.id,
  });
}

export async function listWorkflowRuns(
  ctx: AppContext,
  org: string,
  ws: string,
  args: WorkflowRunListArgs,
): Promise<{ runs: WorkflowRunModel[]; total: number; page: number; limit: number }> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const page = args.page ?? 1;
  const limit = args.limit ?? RUN_PAGE.fallback;
  const where: WhereOptions = { workspace_id: scope.workspace.id };
  if (args.project_id) Object.assign(where, { project_id: (await resolveProject(scope, args.project_id)).id });
  if (args.status?.length) Object.assign(where, { status: args.status });
  const { rows, total } = await readNewestPage<WorkflowRunModel>(WorkflowRunModel, where, page, limit);
  return { runs: rows, total, page, limit };
}

/** The run of the workspace (and of the project when one is named): 404 otherwise. */
async function findRun(scope: WorkspaceScope, runId: string, projectId: string | null | undefined): Promise<WorkflowRunModel> {
  const where: WhereOptions = { id: runId, workspace_id: scope.workspace.id };
  if (projectId) Object.assign(where, { project_id: projectId });
  const run = await WorkflowRunModel.findOne({ where });
  if (!run) throw new NotFoundError('Workflow run');
  return run;
}

/** Moves a pending run; the conditional update decides, a run that is no longer pending is 409. */
async function leavePending(
  ctx: AppContext,
  org: string,
  ws: string,
  runId: string,
  projectId: string | null | undefined,
  values: Partial<Pick<WorkflowRunModel, 'status' | 'started_at' | 'finished_at' | 'run_heartbeat_at'>>,
  refusal: (status: WorkflowRunStatus) => string,
): Promise<WorkflowRunModel> {
  const scope = await resolveWorkspace(ctx, org, ws);
  if (projectId) await resolveProject(scope, projectId);
  const run = await findRun(scope, runId, projectId);
  requireScope(scope, WORKFLOW_WRITE);
  const [count, rows] = await WorkflowRunModel.update(values, {
    where: { id: run.id, workspace_id: scope.workspace.id, status: 'pending' },
    returning: true,
  });
  if (count === 1) return rows[0];
  const current = await findRun(scope, runId, projectId);
  throw new ConflictError(refusal(current.status));
}

export function startWorkflowRun(ctx: AppContext, org: string, ws: string, runId: string, projectId: string | null | undefined): Promise<WorkflowRunModel> {
  const now = new Date();
  return leavePending(ctx, org, ws, runId, projectId, { status: 'running', started_at: now, run_heartbeat_at: now }, (status) =>
    `The run is ${status}; only a pending run can start`,
  );
}

export function cancelWorkflowRun(ctx: AppContext, org: string, ws: string, runId: string, projectId: string): Promise<WorkflowRunModel> {
  return leavePending(ctx, org, ws, runId, projectId, { status: 'cancelled', finished_at: new Date() }, (status) =>
    status === 'running'
      ? 'The run is running: an active execution host cannot be interrupted by cancel'
      : FINISHED.has(status)
        ? `The run is already ${status}`
        : `The run is ${status} and cannot be cancelled`,
  );
}

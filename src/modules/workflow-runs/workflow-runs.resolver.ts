import { Arg, Args, Ctx, Extensions, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { pageInfo } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { ProjectResponse } from '../projects/projects.types';
import { toSessionGroup } from '../session-groups/session-groups.mapper';
import { SessionGroupSummary } from '../session-groups/session-groups.types';
import { WorkflowRunCreateRequest, WorkflowRunListArgs } from './workflow-runs.inputs';
import { toWorkflowRun } from './workflow-runs.mapper';
import { cancelWorkflowRun, createWorkflowRun, listWorkflowRuns, startWorkflowRun } from './workflow-runs.service';
import { WorkflowRunListResponse, WorkflowRunSummary } from './workflow-runs.types';

const RUNS = '/org/:org/ws/:workspace/workflows/runs';
const TAGS = { tags: ['workflows'] };

@Resolver(() => WorkflowRunSummary)
export class WorkflowRunResolver {
  @Query(() => WorkflowRunListResponse, { description: 'List workflow runs, newest first (optionally of one project).' })
  @Rest('GET', RUNS, TAGS)
  async workflow_runs(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => WorkflowRunListArgs) args: WorkflowRunListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<WorkflowRunListResponse> {
    const result = await listWorkflowRuns(ctx, org, workspace, args);
    return { runs: result.runs.map(toWorkflowRun), ...pageInfo(result.total, result.page, result.limit) };
  }

  @Mutation(() => WorkflowRunSummary, { description: 'Create a pending workflow run in a project.' })
  @Rest('POST', RUNS, { status: 201, ...TAGS })
  async create_workflow_run(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project_id', () => UUIDScalar, { description: 'A project of the workspace (required).' }) projectId: string,
    @Arg('input', () => WorkflowRunCreateRequest, { description: 'The new run.' }) input: WorkflowRunCreateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<WorkflowRunSummary> {
    return toWorkflowRun(await createWorkflowRun(ctx, org, workspace, projectId, input));
  }

  @Mutation(() => WorkflowRunSummary, { description: 'Start a pending run: running, with started_at and run_heartbeat_at (409 otherwise).' })
  @Rest('POST', `${RUNS}/:run_id/start`, TAGS)
  async start_workflow_run(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('run_id', () => UUIDScalar, { description: "The run's id." }) runId: string,
    @Arg('project_id', () => UUIDScalar, { nullable: true, description: 'When given, the run must belong to this project (404 otherwise).' }) projectId: string | null,
    @Ctx() ctx: AppContext,
  ): Promise<WorkflowRunSummary> {
    return toWorkflowRun(await startWorkflowRun(ctx, org, workspace, runId, projectId));
  }

  @Mutation(() => WorkflowRunSummary, { description: 'Cancel a pending run (spec 15); a running or finished run is 409.' })
  @Rest('POST', `${RUNS}/:run_id/cancel`, TAGS)
  async cancel_workflow_run(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('run_id', () => UUIDScalar, { description: "The run's id." }) runId: string,
    @Arg('project_id', () => UUIDScalar, { description: 'The project of the run (required; another project → 404).' }) projectId: string,
    @Ctx() ctx: AppContext,
  ): Promise<WorkflowRunSummary> {
    return toWorkflowRun(await cancelWorkflowRun(ctx, org, workspace, runId, projectId));
  }

  @FieldResolver(() => SessionGroupSummary, { nullable: true, description: 'The run’s session group (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async session_group(@Root() run: WorkflowRunSummary, @Ctx() ctx: AppContext): Promise<SessionGroupSummary | null> {
    if (!run.session_group_id) return null;
    const row = await ctx.loaders.sessionGroupById.load(run.session_group_id);
    return row ? toSessionGroup(row) : null;
  }
}

/** `project.workflow_runs` (GraphQL only), batched per request. */
@Resolver(() => ProjectResponse)
export class ProjectWorkflowRunsResolver {
  @FieldResolver(() => [WorkflowRunSummary], { description: 'Workflow runs of the project, newest first (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async workflow_runs(
    @Root() project: ProjectResponse,
    @ChildLimit(20) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<WorkflowRunSummary[]> {
    const rows = await ctx.loaders.workflowRunsByProject.load({ parent_id: project.id, limit });
    return rows.map(toWorkflowRun);
  }
}

import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { SqlRootField } from '../../core/graphql-sql/sql-fields';
import { pageInfo } from '../../core/pagination';
import { PublishTaskRequest, TaskFilterArgs, TaskListArgs, VisibilityRequest } from './catalogs.inputs';
import { ArtifactDeleteResponse, ArtifactReadmeResponse, TaskFacetsResponse, TaskInstructionResponse, TaskListResponse, TaskSummary, TaskVersionList } from './catalogs.types';
import { deleteTask, getTask, listTasks, TASK_LIST_ROOT, publishTask, setTaskVisibility, taskFacets, taskInstruction, taskReadme, taskVersions } from './tasks.service';

const BASE = '/org/:org/tasks';
const TAGS = { tags: ['catalogs'] };

@Resolver(() => TaskSummary)
export class TaskResolver {
  @Query(() => TaskListResponse, { description: 'List tasks: one entry per name at its latest version (spec 19).' })
  @Rest('GET', BASE, TAGS)
  @SqlRootField(TASK_LIST_ROOT)
  async tasks(@Arg('org', () => String) org: string, @Args(() => TaskListArgs) args: TaskListArgs, @Ctx() ctx: AppContext): Promise<TaskListResponse> {
    const result = await listTasks(ctx, org, args);
    return { tasks: result.tasks, ...pageInfo(result.total, result.page, result.limit) };
  }

  @Query(() => TaskFacetsResponse, { description: 'Task facets (spec 20).' })
  @Rest('GET', `${BASE}/facets`, TAGS)
  task_facets(@Arg('org', () => String) org: string, @Args(() => TaskFilterArgs) args: TaskFilterArgs, @Ctx() ctx: AppContext): Promise<TaskFacetsResponse> {
    return taskFacets(ctx, org, args);
  }

  @Query(() => TaskSummary, { nullable: true, description: 'The latest version of a task (`name`, or `owner/name` for a public one).' })
  @Rest('GET', `${BASE}/:name`, TAGS)
  task(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The task's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<TaskSummary> {
    return getTask(ctx, org, name, null);
  }

  @Query(() => TaskVersionList, { description: 'Versions of a task, newest first, with the latest.' })
  @Rest('GET', `${BASE}/:name/versions`, TAGS)
  task_versions(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The task's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<TaskVersionList> {
    return taskVersions(ctx, org, name);
  }

  @Query(() => ArtifactReadmeResponse, { description: "The latest version's readme." })
  @Rest('GET', `${BASE}/:name/readme`, TAGS)
  task_readme(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The task's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<ArtifactReadmeResponse> {
    return taskReadme(ctx, org, name, null);
  }

  @Query(() => TaskInstructionResponse, { nullable: true, description: "The latest version's instruction: what the agent is asked to do." })
  @Rest('GET', `${BASE}/:name/instruction`, TAGS)
  task_instruction(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The task's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('sandbox_id', () => String, { nullable: true, description: 'Sent by the SDK; the instruction does not depend on the sandbox, so it is accepted and ignored.' }) _sandboxId: string | null,
    @Ctx() ctx: AppContext,
  ): Promise<TaskInstructionResponse> {
    return taskInstruction(ctx, org, name);
  }

  @Query(() => TaskSummary, { nullable: true, description: 'One version of a task.' })
  @Rest('GET', `${BASE}/:name/:version`, TAGS)
  task_version(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The task's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<TaskSummary> {
    return getTask(ctx, org, name, version);
  }

  @Query(() => ArtifactReadmeResponse, { description: "One version's readme." })
  @Rest('GET', `${BASE}/:name/:version/readme`, TAGS)
  task_version_readme(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The task's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<ArtifactReadmeResponse> {
    return taskReadme(ctx, org, name, version);
  }

  @Mutation(() => TaskSummary, { description: 'Publish a task version: metadata and verification (writers).' })
  @Rest('POST', BASE, { status: 201, ...TAGS })
  publish_task(@Arg('org', () => String) org: string, @Arg('input', () => PublishTaskRequest, { description: "The task version's metadata and verification." }) input: PublishTaskRequest, @Ctx() ctx: AppContext): Promise<TaskSummary> {
    return publishTask(ctx, org, input);
  }

  @Mutation(() => TaskSummary, { description: 'Make every version of a task public or private; replies with the latest.' })
  @Rest('PATCH', `${BASE}/:name/visibility`, TAGS)
  set_task_visibility(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's tasks." }) name: string,
    @Arg('input', () => VisibilityRequest, { description: 'The visibility to set.' }) input: VisibilityRequest,
    @Ctx() ctx: AppContext,
  ): Promise<TaskSummary> {
    return setTaskVisibility(ctx, org, name, input.is_public);
  }

  @Mutation(() => ArtifactDeleteResponse, { description: 'Delete one version of a task.' })
  @Rest('DELETE', `${BASE}/:name/:version`, TAGS)
  delete_task_version(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's tasks." }) name: string,
    @Arg('version', () => String, { description: 'The version to delete (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<ArtifactDeleteResponse> {
    return deleteTask(ctx, org, name, version);
  }
}

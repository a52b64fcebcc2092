import { Arg, Args, Ctx, Extensions, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { pageInfo } from '../../core/pagination';
import { TaskSetFilterArgs, TaskSetListArgs, TaskSetRequest, VisibilityRequest } from './catalogs.inputs';
import { TaskSetDeleteResponse, TaskSetFacetsResponse, TaskSetListResponse, TaskSetResponse, TaskSummary } from './catalogs.types';
import { createTaskSet, deleteTaskSet, getTaskSet, listTaskSets, parseMember, replaceTaskSet, setTaskSetVisibility, taskSetFacets } from './task-sets.service';

const BASE = '/org/:org/task-sets';
const TAGS = { tags: ['catalogs'] };

@Resolver(() => TaskSetResponse)
export class TaskSetResolver {
  @Query(() => TaskSetListResponse, { description: 'List task sets of the organization (and public ones with include_public).' })
  @Rest('GET', BASE, TAGS)
  async task_sets(@Arg('org', () => String) org: string, @Args(() => TaskSetListArgs) args: TaskSetListArgs, @Ctx() ctx: AppContext): Promise<TaskSetListResponse> {
    const result = await listTaskSets(ctx, org, args);
    return { task_sets: result.task_sets, ...pageInfo(result.total, result.page, result.limit) };
  }

  @Query(() => TaskSetFacetsResponse, { description: 'Task-set facets: each dimension with the other filters applied and its own excluded.' })
  @Rest('GET', `${BASE}/facets`, TAGS)
  task_set_facets(@Arg('org', () => String) org: string, @Args(() => TaskSetFilterArgs) args: TaskSetFilterArgs, @Ctx() ctx: AppContext): Promise<TaskSetFacetsResponse> {
    return taskSetFacets(ctx, org, args);
  }

  @Query(() => TaskSetResponse, { nullable: true, description: 'One task set: `name`, or `owner/name` for another organization\'s public set.' })
  @Rest('GET', `${BASE}/:name`, TAGS)
  task_set(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The task set's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<TaskSetResponse> {
    return getTaskSet(ctx, org, name);
  }

  @Mutation(() => TaskSetResponse, { description: 'Create a task set (writers).' })
  @Rest('POST', BASE, { status: 201, ...TAGS })
  create_task_set(@Arg('org', () => String) org: string, @Arg('input', () => TaskSetRequest, { description: 'The new task set.' }) input: TaskSetRequest, @Ctx() ctx: AppContext): Promise<TaskSetResponse> {
    return createTaskSet(ctx, org, input);
  }

  @Mutation(() => TaskSetResponse, { description: 'Replace a task set whole (a new name renames it).' })
  @Rest('PUT', `${BASE}/:name`, TAGS)
  replace_task_set(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: 'The current name (the body\'s `name` renames the set).' }) name: string,
    @Arg('input', () => TaskSetRequest, { description: 'The whole task set.' }) input: TaskSetRequest,
    @Ctx() ctx: AppContext,
  ): Promise<TaskSetResponse> {
    return replaceTaskSet(ctx, org, name, input);
  }

  @Mutation(() => TaskSetResponse, { description: 'Make a task set public or private.' })
  @Rest('PATCH', `${BASE}/:name/visibility`, TAGS)
  set_task_set_visibility(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's task sets." }) name: string,
    @Arg('input', () => VisibilityRequest, { description: 'The visibility to set.' }) input: VisibilityRequest,
    @Ctx() ctx: AppContext,
  ): Promise<TaskSetResponse> {
    return setTaskSetVisibility(ctx, org, name, input.is_public);
  }

  @Mutation(() => TaskSetDeleteResponse, { description: 'Delete a task set.' })
  @Rest('DELETE', `${BASE}/:name`, TAGS)
  delete_task_set(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "Name of one of the organization's task sets." }) name: string, @Ctx() ctx: AppContext): Promise<TaskSetDeleteResponse> {
    return deleteTaskSet(ctx, org, name);
  }

  @FieldResolver(() => [TaskSummary], {
    description:
      "The tasks of the first `limit` members, resolved to their pinned or latest version (the set's organization first, then public tasks); unresolvable members are left out (GraphQL only).",
  })
  @Extensions({ graphqlOnly: true })
  async tasks(
    @Root() set: TaskSetResponse,
    @ChildLimit(100, { what: 'Members (in order)' }) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<TaskSummary[]> {
    const keys = set.members.slice(0, limit).flatMap((member) => {
      const ref = parseMember(member);
      return ref ? [`${set.reader_org_id ?? ''} ${set.organization_id} ${ref.owner ?? ''} ${ref.name} ${ref.version ?? ''}`] : [];
    });
    const rows = await ctx.loaders.memberTask.loadMany(keys);
    return rows.flatMap((row) => (row && !(row instanceof Error) ? [row] : []));
  }
}

import { expression, Sql, SqlRootField } from '../../core/graphql-sql/sql-fields';
import { Arg, Args, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { ListPageArgs } from '../../core/pagination';
import { CreateWorkspaceInput, UpdateWorkspaceInput } from './workspaces.inputs';
import { toWorkspace } from './workspaces.mapper';
import { createWorkspace, getWorkspace, listWorkspaces, updateWorkspace } from './workspaces.service';
import { WorkspaceListResponse, WorkspaceResponse } from './workspaces.types';

@Resolver(() => WorkspaceResponse)
export class WorkspaceResolver {
  @Query(() => WorkspaceListResponse, { description: 'List the workspaces of an organization.' })
  @Rest('GET', '/org/:org/ws', { tags: ['workspaces'] })
  async workspaces(
    @Arg('org', () => String) org: string,
    @Args(() => ListPageArgs) page: ListPageArgs,
    @Ctx() ctx: AppContext,
  ): Promise<WorkspaceListResponse> {
    return { workspaces: (await listWorkspaces(ctx, org, page)).map(toWorkspace) };
  }

  @Query(() => WorkspaceResponse, { nullable: true, description: 'Get one workspace.' })
  @Rest('GET', '/org/:org/ws/:workspace', { tags: ['workspaces'] })
  // The resolver's own check (membership, API key scope), then the row it found.
  @SqlRootField({
    async from(ctx, args, params, as) {
      const workspace = await getWorkspace(ctx, String(args.org), String(args.workspace));
      return `workspaces ${as} WHERE ${as}.id = ${params.add(workspace.id)}`;
    },
  })
  async workspace(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Ctx() ctx: AppContext,
  ): Promise<WorkspaceResponse> {
    return toWorkspace(await getWorkspace(ctx, org, workspace));
  }

  @Mutation(() => WorkspaceResponse, { description: 'Create a workspace (with its default project).' })
  @Rest('POST', '/org/:org/ws', { status: 201, tags: ['workspaces'] })
  async create_workspace(
    @Arg('org', () => String) org: string,
    @Arg('input', () => CreateWorkspaceInput, { description: 'The new workspace.' }) input: CreateWorkspaceInput,
    @Ctx() ctx: AppContext,
  ): Promise<WorkspaceResponse> {
    return toWorkspace(await createWorkspace(ctx, org, input));
  }

  @Mutation(() => WorkspaceResponse, { description: 'Update a workspace: absent fields stay, null clears the description.' })
  @Rest('PUT', '/org/:org/ws/:workspace', { tags: ['workspaces'] })
  async update_workspace(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('input', () => UpdateWorkspaceInput, { description: 'The changes.' }) input: UpdateWorkspaceInput,
    @Ctx() ctx: AppContext,
  ): Promise<WorkspaceResponse> {
    return toWorkspace(await updateWorkspace(ctx, org, workspace, input));
  }

  @FieldResolver(() => String, { nullable: true })
  @Sql(expression((w) => `(SELECT wo.name FROM organizations wo WHERE wo.id = ${w}.organization_id)`))
  async org_name(@Root() workspace: WorkspaceResponse, @Ctx() ctx: AppContext): Promise<string | null> {
    // The organization the request resolved is already at hand; others (GraphQL navigation) are batched.
    if (ctx.tenant?.org.id === workspace.org_id) return ctx.tenant.org.name;
    return (await ctx.loaders.organizationById.load(workspace.org_id))?.name ?? null;
  }

  @FieldResolver(() => Int, { nullable: true })
  project_count(@Root() workspace: WorkspaceResponse, @Ctx() ctx: AppContext): Promise<number> {
    return ctx.loaders.workspaceProjectCount.load(workspace.id);
  }
}

import { Arg, Args, Ctx, Extensions, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { ListPageArgs, MAX_LIST_PAGE } from '../../core/pagination';
import { WorkspaceResponse } from '../workspaces/workspaces.types';
import { CreateProjectInput } from './projects.inputs';
import { toProject } from './projects.mapper';
import { createProject, deleteProject, getProject, listProjects } from './projects.service';
import { ProjectDeletedResponse, ProjectResourceCounts, ProjectResponse } from './projects.types';

@Resolver(() => ProjectResponse)
export class ProjectResolver {
  @Query(() => [ProjectResponse], { description: 'List the projects of a workspace (default project first).' })
  @Rest('GET', '/org/:org/ws/:workspace/projects', { tags: ['projects'] })
  async projects(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => ListPageArgs) page: ListPageArgs,
    @Ctx() ctx: AppContext,
  ): Promise<ProjectResponse[]> {
    return (await listProjects(ctx, org, workspace, page)).map(toProject);
  }

  @Query(() => ProjectResponse, { nullable: true, description: 'Get one project by key.' })
  @Rest('GET', '/org/:org/ws/:workspace/projects/:project_key', { tags: ['projects'] })
  async project(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project_key', () => String, { description: "The project's key." }) projectKey: string,
    @Ctx() ctx: AppContext,
  ): Promise<ProjectResponse> {
    return toProject(await getProject(ctx, org, workspace, projectKey));
  }

  @Mutation(() => ProjectResponse, { description: 'Create a project in a workspace.' })
  @Rest('POST', '/org/:org/ws/:workspace/projects', { status: 201, tags: ['projects'] })
  async create_project(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('input', () => CreateProjectInput, { description: 'The new project.' }) input: CreateProjectInput,
    @Ctx() ctx: AppContext,
  ): Promise<ProjectResponse> {
    return toProject(await createProject(ctx, org, workspace, input));
  }

  @Mutation(() => ProjectDeletedResponse, { description: 'Delete an empty, non-default project.' })
  @Rest('DELETE', '/org/:org/ws/:workspace/projects/:project_key', { tags: ['projects'] })
  delete_project(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project_key', () => String, { description: 'Key of the project to delete.' }) projectKey: string,
    @Ctx() ctx: AppContext,
  ): Promise<ProjectDeletedResponse> {
    return deleteProject(ctx, org, workspace, projectKey);
  }

  @FieldResolver(() => ProjectResourceCounts, { description: 'Sessions, evaluations and assessments in the project.' })
  resource_counts(@Root() project: ProjectResponse, @Ctx() ctx: AppContext): Promise<ProjectResourceCounts> {
    return ctx.loaders.projectResourceCounts.load(project.id);
  }
}

/** `workspace.projects`: GraphQL navigation only, batched per request. */
@Resolver(() => WorkspaceResponse)
export class WorkspaceProjectsResolver {
  @FieldResolver(() => [ProjectResponse], { description: 'Projects of the workspace (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async projects(
    @Root() workspace: WorkspaceResponse,
    @ChildLimit(MAX_LIST_PAGE) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<ProjectResponse[]> {
    // The loader reads at most MAX_LIST_PAGE projects per workspace.
    return (await ctx.loaders.projectsByWorkspace.load(workspace.id)).slice(0, limit).map(toProject);
  }
}

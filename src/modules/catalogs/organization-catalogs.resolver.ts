import { Ctx, Extensions, FieldResolver, Resolver, Root } from 'type-graphql';
import { ChildLimit } from '../../core/graphql-decorators';
import type { AppContext } from '../../core/context';
import { OrganizationResponse } from '../organizations/organizations.types';
import { toCapability, toTaskSet } from './catalogs.mapper';
import { CapabilityArtifactSummary, DatasetArtifactSummary, TaskSetResponse, TaskSummary } from './catalogs.types';

const first = (parent_id: string, limit: number) => ({ parent_id, limit });

/** organization → its catalogs, newest first, the latest version per name: GraphQL navigation only, batched. */
@Resolver(() => OrganizationResponse)
export class OrganizationCatalogsResolver {
  @FieldResolver(() => [DatasetArtifactSummary], { description: "The organization's datasets (GraphQL only)." })
  @Extensions({ graphqlOnly: true })
  async datasets(@Root() org: OrganizationResponse, @ChildLimit(20) limit: number, @Ctx() ctx: AppContext): Promise<DatasetArtifactSummary[]> {
    return ctx.loaders.organizationDatasets.load(first(org.id, limit));
  }

  @FieldResolver(() => [CapabilityArtifactSummary], { description: "The organization's capabilities (GraphQL only)." })
  @Extensions({ graphqlOnly: true })
  async capabilities(@Root() org: OrganizationResponse, @ChildLimit(20) limit: number, @Ctx() ctx: AppContext): Promise<CapabilityArtifactSummary[]> {
    return (await ctx.loaders.organizationCapabilities.load(first(org.id, limit))).map((row) => toCapability(CapabilityArtifactSummary, row, org.id));
  }

  @FieldResolver(() => [TaskSummary], { description: "The organization's tasks (GraphQL only)." })
  @Extensions({ graphqlOnly: true })
  async tasks(@Root() org: OrganizationResponse, @ChildLimit(20) limit: number, @Ctx() ctx: AppContext): Promise<TaskSummary[]> {
    return ctx.loaders.organizationTasks.load(first(org.id, limit));
  }

  @FieldResolver(() => [TaskSetResponse], { description: "The organization's task sets (GraphQL only)." })
  @Extensions({ graphqlOnly: true })
  async task_sets(@Root() org: OrganizationResponse, @ChildLimit(20) limit: number, @Ctx() ctx: AppContext): Promise<TaskSetResponse[]> {
    return (await ctx.loaders.organizationTaskSets.load(first(org.id, limit))).map((row) => toTaskSet(row, org.id));
  }
}

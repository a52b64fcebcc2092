import { Arg, Args, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { ListPageArgs } from '../../core/pagination';
import { toOrganization } from './organizations.mapper';
import { getOrganization, listViewerOrganizations } from './organizations.service';
import { OrganizationResponse } from './organizations.types';

@Resolver(() => OrganizationResponse)
export class OrganizationResolver {
  @Query(() => [OrganizationResponse], { description: "The caller's organizations (a bare JSON array over REST)." })
  @Rest('GET', '/user/organizations', { tags: ['organizations'] })
  async user_organizations(@Args(() => ListPageArgs) page: ListPageArgs, @Ctx() ctx: AppContext): Promise<OrganizationResponse[]> {
    return (await listViewerOrganizations(ctx, page)).map((item) => toOrganization(item.org, item.canManageMembers));
  }

  @Query(() => OrganizationResponse, { nullable: true, description: 'Get one organization the caller belongs to.' })
  @Rest('GET', '/org/:org', { tags: ['organizations'] })
  async organization(@Arg('org', () => String) org: string, @Ctx() ctx: AppContext): Promise<OrganizationResponse> {
    const found = await getOrganization(ctx, org);
    return toOrganization(found.org, found.canManageMembers);
  }

  @FieldResolver(() => Int, { description: 'Number of members of the organization.' })
  member_count(@Root() organization: OrganizationResponse, @Ctx() ctx: AppContext): Promise<number> {
    return ctx.loaders.organizationMemberCount.load(organization.id);
  }
}

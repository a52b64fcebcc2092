import { capabilityBundle } from './capability-downloads';
import { Arg, Args, Ctx, Extensions, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { pageInfo } from '../../core/pagination';
import { capabilityFacets, capabilityReadme, capabilityVersions, deleteCapability, getCapability, listCapabilities, publishCapability, setCapabilityVisibility } from './capabilities.service';
import { CapabilityFilterArgs, CapabilityListArgs, FILES_BODY_LIMIT, PublishCapabilityRequest, VisibilityRequest } from './catalogs.inputs';
import { capabilityVersionsOf } from './catalogs.loaders';
import { toCapability } from './catalogs.mapper';
import {
  CapabilityBundleResponse,
  ArtifactDeleteResponse,
  ArtifactReadmeResponse,
  CapabilityArtifactDetail,
  CapabilityArtifactListResponse,
  CapabilityArtifactSummary,
  CapabilityFacetsResponse,
  CapabilityVersionList,
} from './catalogs.types';

const BASE = '/org/:org/capabilities';
const TAGS = { tags: ['catalogs'] };

@Resolver(() => CapabilityArtifactSummary)
export class CapabilityResolver {
  @Query(() => CapabilityArtifactListResponse, { description: 'List capabilities: the latest version per name.' })
  @Rest('GET', BASE, TAGS)
  async capabilities(@Arg('org', () => String) org: string, @Args(() => CapabilityListArgs) args: CapabilityListArgs, @Ctx() ctx: AppContext): Promise<CapabilityArtifactListResponse> {
    const result = await listCapabilities(ctx, org, args);
    return { capabilities: result.capabilities, ...pageInfo(result.total, result.page, result.limit) };
  }

  @Query(() => CapabilityFacetsResponse, { description: 'Capability facets: each dimension with the other filters applied and its own excluded.' })
  @Rest('GET', `${BASE}/facets`, TAGS)
  capability_facets(@Arg('org', () => String) org: string, @Args(() => CapabilityFilterArgs) args: CapabilityFilterArgs, @Ctx() ctx: AppContext): Promise<CapabilityFacetsResponse> {
    return capabilityFacets(ctx, org, args);
  }

  @Query(() => CapabilityArtifactDetail, { nullable: true, description: 'The latest version of a capability (spec 17); `owner/name` (`owner%2Fname`) for a public one.' })
  @Rest('GET', `${BASE}/:name`, TAGS)
  capability(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The capability's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<CapabilityArtifactDetail> {
    return getCapability(ctx, org, name, null);
  }

  @Query(() => CapabilityVersionList, { description: 'Versions of a capability, newest first, with the latest (spec 18).' })
  @Rest('GET', `${BASE}/:name/versions`, TAGS)
  capability_versions(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The capability's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<CapabilityVersionList> {
    return capabilityVersions(ctx, org, name);
  }

  @Query(() => ArtifactReadmeResponse, { description: "The latest version's README.md." })
  @Rest('GET', `${BASE}/:name/readme`, TAGS)
  capability_readme(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The capability's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<ArtifactReadmeResponse> {
    return capabilityReadme(ctx, org, name, null);
  }

  @Query(() => CapabilityArtifactDetail, { nullable: true, description: 'One version of a capability.' })
  @Rest('GET', `${BASE}/:name/:version`, TAGS)
  capability_version(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The capability's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<CapabilityArtifactDetail> {
    return getCapability(ctx, org, name, version);
  }

  @Query(() => CapabilityBundleResponse, { nullable: true, description: "A signed, expiring URL of the version's files as a tar.gz, with its SHA-256 and size." })
  @Rest('GET', `${BASE}/:name/:version/bundle`, TAGS)
  capability_bundle(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The capability's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<CapabilityBundleResponse> {
    return capabilityBundle(ctx, org, name, version);
  }

  @Query(() => ArtifactReadmeResponse, { description: "One version's README.md." })
  @Rest('GET', `${BASE}/:name/:version/readme`, TAGS)
  capability_version_readme(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The capability's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<ArtifactReadmeResponse> {
    return capabilityReadme(ctx, org, name, version);
  }

  @Mutation(() => CapabilityArtifactDetail, { description: 'Publish a capability version: manifest and files (base64), up to 50 MiB over REST.' })
  @Rest('POST', BASE, { status: 201, bodyLimit: FILES_BODY_LIMIT, ...TAGS })
  publish_capability(
    @Arg('org', () => String) org: string,
    @Arg('input', () => PublishCapabilityRequest, { description: 'The capability version: manifest and files.' }) input: PublishCapabilityRequest,
    @Ctx() ctx: AppContext,
  ): Promise<CapabilityArtifactDetail> {
    return publishCapability(ctx, org, input);
  }

  @Mutation(() => CapabilityArtifactSummary, { description: 'Make every version of a capability public or private; replies with the latest.' })
  @Rest('PATCH', `${BASE}/:name/visibility`, TAGS)
  set_capability_visibility(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's capabilities." }) name: string,
    @Arg('input', () => VisibilityRequest, { description: 'The visibility to set.' }) input: VisibilityRequest,
    @Ctx() ctx: AppContext,
  ): Promise<CapabilityArtifactSummary> {
    return setCapabilityVisibility(ctx, org, name, input.is_public);
  }

  @Mutation(() => ArtifactDeleteResponse, { description: 'Delete one version of a capability.' })
  @Rest('DELETE', `${BASE}/:name/:version`, TAGS)
  delete_capability_version(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's capabilities." }) name: string,
    @Arg('version', () => String, { description: 'The version to delete (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<ArtifactDeleteResponse> {
    return deleteCapability(ctx, org, name, version);
  }

  @FieldResolver(() => [CapabilityArtifactSummary], { description: 'The versions of the capability, newest first, the first `limit` (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async version_history(
    @Root() capability: CapabilityArtifactSummary,
    @ChildLimit(20) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<CapabilityArtifactSummary[]> {
    const rows = await ctx.loaders.capabilityVersionRows.load({ parent_id: capabilityVersionsOf(capability), limit });
    return rows.map((row) => toCapability(CapabilityArtifactSummary, row, ctx.tenant?.org.id ?? row.organization_id));
  }
}

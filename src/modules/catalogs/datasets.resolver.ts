import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { Rest } from '../../core/graphql-decorators';
import { SqlRootField } from '../../core/graphql-sql/sql-fields';
import { pageInfo } from '../../core/pagination';
import { DatasetActivityArgs, DatasetDownloadRequest, DatasetFilterArgs, DatasetListArgs, FILES_BODY_LIMIT, PublishDatasetRequest, VisibilityRequest } from './catalogs.inputs';
import {
  ArtifactDeleteResponse,
  DatasetActivityListResponse,
  DatasetArtifactListResponse,
  DatasetArtifactSummary,
  DatasetDownloadResponse,
  DatasetFacetsResponse,
  DatasetVersionList,
} from './catalogs.types';
import { listDatasetActivity } from './dataset-activity';
import { downloadDataset } from './dataset-downloads';
import { datasetFacets, datasetVersions, deleteDataset, getDataset, DATASET_LIST_ROOT, listDatasets, publishDataset, setDatasetVisibility } from './datasets.service';

const BASE = '/org/:org/datasets';
const TAGS = { tags: ['catalogs'] };

@Resolver(() => DatasetArtifactSummary)
export class DatasetResolver {
  @Query(() => DatasetArtifactListResponse, { description: 'List datasets: the latest version per name (spec 16).' })
  @Rest('GET', BASE, TAGS)
  @SqlRootField(DATASET_LIST_ROOT)
  async datasets(@Arg('org', () => String) org: string, @Args(() => DatasetListArgs) args: DatasetListArgs, @Ctx() ctx: AppContext): Promise<DatasetArtifactListResponse> {
    const result = await listDatasets(ctx, org, args);
    return { datasets: result.datasets, ...pageInfo(result.total, result.page, result.limit) };
  }

  @Query(() => DatasetFacetsResponse, { description: 'Dataset facets: each dimension with the other filters applied and its own excluded.' })
  @Rest('GET', `${BASE}/facets`, TAGS)
  dataset_facets(@Arg('org', () => String) org: string, @Args(() => DatasetFilterArgs) args: DatasetFilterArgs, @Ctx() ctx: AppContext): Promise<DatasetFacetsResponse> {
    return datasetFacets(ctx, org, args);
  }

  @Query(() => DatasetActivityListResponse, { description: "The organization's dataset activity (publish, download, delete), newest first; any member reads it." })
  @Rest('GET', `${BASE}/activity`, TAGS)
  dataset_activity(@Arg('org', () => String) org: string, @Args(() => DatasetActivityArgs) args: DatasetActivityArgs, @Ctx() ctx: AppContext): Promise<DatasetActivityListResponse> {
    return listDatasetActivity(ctx, org, args);
  }

  @Query(() => DatasetArtifactSummary, { nullable: true, description: 'The latest version of a dataset (`name`, or `owner/name` for a public one).' })
  @Rest('GET', `${BASE}/:name`, TAGS)
  dataset(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The dataset's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<DatasetArtifactSummary> {
    return getDataset(ctx, org, name, null);
  }

  @Query(() => DatasetVersionList, { description: 'Versions of a dataset, newest first, with the latest.' })
  @Rest('GET', `${BASE}/:name/versions`, TAGS)
  dataset_versions(@Arg('org', () => String) org: string, @Arg('name', () => String, { description: "The dataset's name, or `owner/name` for another organization's public one." }) name: string, @Ctx() ctx: AppContext): Promise<DatasetVersionList> {
    return datasetVersions(ctx, org, name);
  }

  @Query(() => DatasetArtifactSummary, { nullable: true, description: 'One version of a dataset.' })
  @Rest('GET', `${BASE}/:name/:version`, TAGS)
  dataset_version(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The dataset's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<DatasetArtifactSummary> {
    return getDataset(ctx, org, name, version);
  }

  @Mutation(() => DatasetArtifactSummary, { description: 'Publish a dataset version (writers): metadata and optionally files (base64), up to 50 MiB over REST.' })
  @Rest('POST', BASE, { status: 201, bodyLimit: FILES_BODY_LIMIT, ...TAGS })
  publish_dataset(
    @Arg('org', () => String) org: string,
    @Arg('input', () => PublishDatasetRequest, { description: "The dataset version's metadata and files." }) input: PublishDatasetRequest,
    @Ctx() ctx: AppContext,
  ): Promise<DatasetArtifactSummary> {
    return publishDataset(ctx, org, input);
  }

  @Mutation(() => DatasetDownloadResponse, { description: "Signed, expiring URLs of a version's files (a tar.gz of all, or of one split, and each file); records the download (any member)." })
  @Rest('POST', `${BASE}/:name/:version/download`, TAGS)
  download_dataset(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "The dataset's name, or `owner/name` for another organization's public one." }) name: string,
    @Arg('version', () => String, { description: 'The version (semantic version).' }) version: string,
    @Arg('input', () => DatasetDownloadRequest, { nullable: true, description: 'The format and split to download; every file as published when absent.' }) input: DatasetDownloadRequest | null,
    @Ctx() ctx: AppContext,
  ): Promise<DatasetDownloadResponse> {
    return downloadDataset(ctx, org, name, version, input);
  }

  @Mutation(() => DatasetArtifactSummary, { description: 'Make every version of a dataset public or private; replies with the latest.' })
  @Rest('PATCH', `${BASE}/:name/visibility`, TAGS)
  set_dataset_visibility(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's datasets." }) name: string,
    @Arg('input', () => VisibilityRequest, { description: 'The visibility to set.' }) input: VisibilityRequest,
    @Ctx() ctx: AppContext,
  ): Promise<DatasetArtifactSummary> {
    return setDatasetVisibility(ctx, org, name, input.is_public);
  }

  @Mutation(() => ArtifactDeleteResponse, { description: 'Delete one version of a dataset.' })
  @Rest('DELETE', `${BASE}/:name/:version`, TAGS)
  delete_dataset_version(
    @Arg('org', () => String) org: string,
    @Arg('name', () => String, { description: "Name of one of the organization's datasets." }) name: string,
    @Arg('version', () => String, { description: 'The version to delete (semantic version).' }) version: string,
    @Ctx() ctx: AppContext,
  ): Promise<ArtifactDeleteResponse> {
    return deleteDataset(ctx, org, name, version);
  }
}

import { DatasetFileModel, DatasetModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { rowSelect, type SqlRoot } from '../../core/graphql-sql/sql-fields';
import { requireScope, resolveOrg, type OrgScope } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { ARTIFACT_PAGE, type DatasetFilterArgs, type DatasetListArgs, type PublishDatasetRequest } from './catalogs.inputs';
import { DEFAULT_DATASET_FORMAT } from './dataset-format';
import { anyOf, catalogListQuery, facetLists, facetSql, newWhere, overlaps, searchIn, type CatalogWhere, type FacetRow } from './catalogs.sql';
import { DatasetArtifactSummary, DatasetSortBy, type DatasetFacetsResponse, type DatasetVersionList } from './catalogs.types';
import { publishedFile } from './capability-bundle';
import { recordDatasetActivity } from './dataset-activity';
import {
  checkPathVersion,
  deleteVersion,
  findArtifactRow,
  catalogPage,
  nameFilter,
  catalogPageRow,
  pageAndCount,
  parseNameRef,
  publishVersion,
  setNameVisibility,
  versionListColumn,
} from './versioned-artifacts';

const WHAT = 'Dataset';

/** A dataset row as DatasetArtifactSummary declares its fields (over `a`), with its organization for navigation. */
let selected: string | undefined;
export const datasetSelect = () => (selected ??= `${rowSelect(DatasetArtifactSummary, 'a')}, a.organization_id`);

function datasetWhere(orgId: string, userId: string, args: DatasetFilterArgs): CatalogWhere {
  const where = newWhere(orgId, args, true);
  if (args.mine) {
    where.scope.push('a.created_by = $user_id');
    where.bind.user_id = userId;
  }
  if (args.name) {
    const filter = nameFilter(args.name);
    if (!filter) {
      where.filters.push({ name: 'name', sql: 'FALSE' });
    } else {
      where.bind.f_name = filter.name;
      if (filter.owner) where.bind.f_owner = filter.owner;
      where.filters.push({
        name: 'name',
        sql: filter.owner ? 'a.name = $f_name AND a.organization_id = (SELECT x.id FROM organizations x WHERE x.key = $f_owner)' : 'a.name = $f_name',
      });
    }
  }
  searchIn(where, ['a.name', 'a.summary'], args.search);
  overlaps(where, 'tags', 'a.tags', args.tags);
  anyOf(where, 'license', 'a.license', args.license);
  overlaps(where, 'task_categories', 'a.task_categories', args.task_categories);
  anyOf(where, 'format', 'a.format', args.format);
  anyOf(where, 'size_category', 'a.size_category', args.size_category);
  return where;
}

const SORTS: Record<DatasetSortBy, [string, boolean]> = {
  [DatasetSortBy.name]: ['a.name', false],
  [DatasetSortBy.created_at]: ['a.created_at', false],
  [DatasetSortBy.updated_at]: ['a.updated_at', false],
  [DatasetSortBy.row_count]: ['a.row_count', true],
  [DatasetSortBy.file_size_bytes]: ['a.file_size_bytes', true],
};

/** The statement parts of a dataset list page (spec 16): the caller's organization, filters and order. */
function datasetListQuery(scope: OrgScope, args: DatasetListArgs) {
  const [column, nullable] = SORTS[args.sort_by ?? DatasetSortBy.created_at];
  return catalogListQuery('datasets', datasetSelect(), datasetWhere(scope.org.id, scope.viewer.user.id, args), { column, nullable, direction: args.sort_dir });
}

export async function listDatasets(ctx: AppContext, orgKey: string, args: DatasetListArgs) {
  const { page, limit } = catalogPage(args, ARTIFACT_PAGE);
  const { rows, total } = await pageAndCount<DatasetArtifactSummary>(ctx, datasetListQuery(await resolveOrg(ctx, orgKey), args), page, limit);
  return { datasets: rows, total, page, limit };
}

/** The same list as the compiled reply's root (SqlRoot of `datasets`): the checks, the count, then the page's ids. */
export const DATASET_LIST_ROOT: SqlRoot = {
  async from(ctx, args, params, as) {
    const { page, limit } = catalogPage(args, ARTIFACT_PAGE);
    const query = datasetListQuery(await resolveOrg(ctx, String(args.org)), args as DatasetListArgs);
    return catalogPageRow(query, params, as, page, limit);
  },
};

export async function datasetFacets(ctx: AppContext, orgKey: string, args: DatasetFilterArgs): Promise<DatasetFacetsResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const where = datasetWhere(scope.org.id, scope.viewer.user.id, args);
  const sql = facetSql('datasets', ['id', 'organization_id', 'name', 'summary', 'tags', 'license', 'format', 'size_category', 'task_categories'], where, [
    { name: 'tags', value: 'a.tags', array: true, filter: 'tags' },
    { name: 'licenses', value: 'a.license', filter: 'license' },
    { name: 'formats', value: 'a.format', filter: 'format' },
    { name: 'size_categories', value: 'a.size_category', filter: 'size_category' },
    { name: 'task_categories', value: 'a.task_categories', array: true, filter: 'task_categories' },
  ]);
  const { lists, numbers } = facetLists(await plainQuery<FacetRow>(sql, where.bind));
  return {
    tags: lists.get('tags') ?? [],
    licenses: lists.get('licenses') ?? [],
    formats: lists.get('formats') ?? [],
    size_categories: lists.get('size_categories') ?? [],
    task_categories: lists.get('task_categories') ?? [],
    total: numbers.get('total') ?? 0,
    filtered_total: numbers.get('filtered_total') ?? 0,
  };
}

export async function getDataset(ctx: AppContext, orgKey: string, name: string, version: string | null): Promise<DatasetArtifactSummary> {
  if (version !== null) checkPathVersion(version);
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  return findArtifactRow<DatasetArtifactSummary>('datasets', datasetSelect(), scope, ref, version, WHAT);
}

export async function datasetVersions(ctx: AppContext, orgKey: string, name: string): Promise<DatasetVersionList> {
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  const row = await findArtifactRow<DatasetArtifactSummary & { version_list: string[] }>('datasets', `${datasetSelect()}, ${versionListColumn('datasets')}`, scope, ref, null, WHAT);
  const { version_list: versions, ...latest } = row;
  return { name: latest.name, versions, latest };
}

/** Each file decoded, with its sha256 and size computed here (the input rules checked the base64 and the paths). */
function datasetFiles(input: PublishDatasetRequest) {
  return (input.files ?? []).map((file) => ({ ...publishedFile(file), split: file.split ?? null }));
}

export async function publishDataset(ctx: AppContext, orgKey: string, input: PublishDatasetRequest): Promise<DatasetArtifactSummary> {
  const scope = await resolveOrg(ctx, orgKey);
  requireScope(scope, 'catalog:publish');
  const files = datasetFiles(input);
  await publishVersion('datasets', WHAT, scope, input.name, input.version, input.is_public, async (values, transaction) => {
    const dataset = await DatasetModel.create(
      {
        organization_id: scope.org.id,
        name: input.name,
        version: input.version,
        version_key: values.version_key,
        is_public: values.is_public,
        format: input.format ?? DEFAULT_DATASET_FORMAT,
        pretty_name: input.pretty_name ?? null,
        summary: input.summary ?? null,
        license: input.license ?? null,
        size_category: input.size_category ?? null,
        language: input.language ?? null,
        tags: input.tags ?? null,
        task_categories: input.task_categories ?? null,
        column_count: input.column_count ?? null,
        row_count: input.row_count ?? null,
        file_size_bytes: input.file_size_bytes ?? null,
        origin: input.origin ?? {},
        created_by: scope.viewer.user.id,
      },
      { transaction },
    );
    if (files.length) await DatasetFileModel.bulkCreate(files.map((file) => ({ dataset_id: dataset.id, ...file })), { transaction });
    await recordDatasetActivity(scope, { dataset_id: dataset.id, dataset_owner: scope.org.key, dataset_name: input.name, version: input.version, action: 'publish' }, transaction);
  });
  return findArtifactRow<DatasetArtifactSummary>('datasets', datasetSelect(), scope, { owner: scope.org.key, name: input.name, own: true }, input.version, WHAT);
}

export async function setDatasetVisibility(ctx: AppContext, orgKey: string, name: string, isPublic: boolean): Promise<DatasetArtifactSummary> {
  const { scope, ref } = await setNameVisibility(ctx, orgKey, 'datasets', WHAT, name, isPublic);
  return findArtifactRow<DatasetArtifactSummary>('datasets', datasetSelect(), scope, ref, null, WHAT);
}

export async function deleteDataset(ctx: AppContext, orgKey: string, name: string, version: string) {
  const { scope, ref, deleted } = await deleteVersion(ctx, orgKey, 'datasets', WHAT, name, version, (row, transaction) =>
    // The version goes with this transaction: the entry names it, without a dataset id to keep.
    recordDatasetActivity(row.scope, { dataset_id: null, dataset_owner: row.scope.org.key, dataset_name: row.ref.name, version, action: 'delete' }, transaction),
  );
  return { ...deleted, name: `${scope.org.key}/${ref.name}` };
}

import { CapabilityFileModel, CapabilityModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { requireScope, resolveOrg } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { loadWithinReply } from '../../core/reply-budget';
import { buildCapabilityBundle } from './capability-bundle';
import { ARTIFACT_PAGE, type CapabilityFilterArgs, type CapabilityListArgs, type PublishCapabilityRequest } from './catalogs.inputs';
import { anyOf, catalogListQuery, facetLists, facetSql, newWhere, overlaps, searchIn, type CatalogWhere, type FacetRow } from './catalogs.sql';
import { toCapability, type CapabilityRow } from './catalogs.mapper';
import {
  CapabilitySortBy,
  type ArtifactReadmeResponse,
  CapabilityArtifactDetail,
  CapabilityArtifactSummary,
  type CapabilityFacetsResponse,
  type CapabilityVersionList,
} from './catalogs.types';
import {
  catalogPage,
  checkPathVersion,
  deleteVersion,
  findArtifactRow,
  pageAndCount,
  parseNameRef,
  publishVersion,
  setNameVisibility,
  type NameRef,
} from './versioned-artifacts';

const WHAT = 'Capability';

/** Summary columns: the name's version strings (newest first) and count come from the versions index. */
export const CAPABILITY_SELECT = `a.id, a.organization_id, o.key AS org_key, a.name, a.version, a.created_at, a.updated_at, a.description,
  a.author_name, a.license, a.is_public, a.keywords, a.origin, a.component_counts, a.component_details, a.secrets,
  ARRAY(SELECT v.version FROM capabilities v WHERE v.organization_id = a.organization_id AND v.name = a.name ORDER BY v.version_key DESC) AS versions,
  (SELECT count(*) FROM capabilities v WHERE v.organization_id = a.organization_id AND v.name = a.name) AS version_count`;
const DETAIL_SELECT = `${CAPABILITY_SELECT}, a.artifact_sha256, a.runtime_digest, a.manifest, a.file_manifest`;

function capabilityWhere(orgId: string, userId: string, args: CapabilityFilterArgs): CatalogWhere {
  const where = newWhere(orgId, args, true);
  if (args.mine) {
    where.scope.push('a.created_by = $user_id');
    where.bind.user_id = userId;
  }
  searchIn(where, ['a.name', 'a.description'], args.search);
  overlaps(where, 'keywords', 'a.keywords', args.keywords);
  anyOf(where, 'author', 'a.author_name', args.author);
  anyOf(where, 'license', 'a.license', args.license);
  return where;
}

const SORTS: Record<CapabilitySortBy, string> = {
  [CapabilitySortBy.name]: 'a.name',
  [CapabilitySortBy.created_at]: 'a.created_at',
  [CapabilitySortBy.updated_at]: 'a.updated_at',
};

export async function listCapabilities(ctx: AppContext, orgKey: string, args: CapabilityListArgs) {
  const { page, limit } = catalogPage(args, ARTIFACT_PAGE);
  const scope = await resolveOrg(ctx, orgKey);
  const where = capabilityWhere(scope.org.id, scope.viewer.user.id, args);
  const query = catalogListQuery('capabilities', CAPABILITY_SELECT, where, {
    column: SORTS[args.sort_by ?? CapabilitySortBy.created_at],
    nullable: false,
    direction: args.sort_dir,
  });
  const { rows, total } = await pageAndCount<CapabilityRow>(ctx, query, page, limit);
  return { capabilities: rows.map((row) => toCapability(CapabilityArtifactSummary, row, scope.org.id)), total, page, limit };
}

export async function capabilityFacets(ctx: AppContext, orgKey: string, args: CapabilityFilterArgs): Promise<CapabilityFacetsResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const where = capabilityWhere(scope.org.id, scope.viewer.user.id, args);
  const sql = facetSql('capabilities', ['id', 'name', 'description', 'keywords', 'author_name', 'license'], where, [
    { name: 'keywords', value: 'a.keywords', array: true, filter: 'keywords' },
    { name: 'authors', value: 'a.author_name', filter: 'author' },
    { name: 'licenses', value: 'a.license', filter: 'license' },
  ]);
  const { lists, numbers } = facetLists(await plainQuery<FacetRow>(sql, where.bind));
  return {
    keywords: lists.get('keywords') ?? [],
    authors: lists.get('authors') ?? [],
    licenses: lists.get('licenses') ?? [],
    total: numbers.get('total') ?? 0,
    filtered_total: numbers.get('filtered_total') ?? 0,
  };
}

export async function getCapability(ctx: AppContext, orgKey: string, name: string, version: string | null): Promise<CapabilityArtifactDetail> {
  if (version !== null) checkPathVersion(version);
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  return toCapability(CapabilityArtifactDetail, await findArtifactRow<CapabilityRow>('capabilities', DETAIL_SELECT, scope, ref, version, WHAT), scope.org.id);
}

export async function capabilityVersions(ctx: AppContext, orgKey: string, name: string): Promise<CapabilityVersionList> {
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  // The latest summary carries every version string, newest first: one statement.
  const latest = toCapability(CapabilityArtifactSummary, await findArtifactRow<CapabilityRow>('capabilities', CAPABILITY_SELECT, scope, ref, null, WHAT), scope.org.id);
  return { name: latest.name, versions: latest.versions, latest };
}

export async function capabilityReadme(ctx: AppContext, orgKey: string, name: string, version: string | null): Promise<ArtifactReadmeResponse> {
  if (version !== null) checkPathVersion(version);
  const scope = await resolveOrg(ctx, orgKey);
  const ref: NameRef = parseNameRef(scope, name, WHAT);
  // A README may be tens of MiB (a publish body's files): it counts against the request's reply budget, so aliased reads take turns and stop once past it.
  const row = await loadWithinReply(ctx, async () => {
    const found = await findArtifactRow<{ name: string; organization_id: string; org_key: string; version: string; content: Buffer | null }>(
      'capabilities',
      `a.name, a.organization_id, o.key AS org_key, a.version,
       (SELECT f.content FROM capability_files f WHERE f.capability_id = a.id AND lower(f.path) = 'readme.md' ORDER BY f.path = 'README.md' DESC LIMIT 1) AS content`,
      scope,
      ref,
      version,
      WHAT,
    );
    return { value: found, bytes: found.content?.length ?? 0 };
  });
  return {
    name: row.organization_id === scope.org.id ? row.name : `${row.org_key}/${row.name}`,
    version: row.version,
    content: row.content ? row.content.toString('utf8') : null,
  };
}

export async function publishCapability(ctx: AppContext, orgKey: string, input: PublishCapabilityRequest): Promise<CapabilityArtifactDetail> {
  const bundle = buildCapabilityBundle(input); // 422 before the tenant lookup
  const scope = await resolveOrg(ctx, orgKey);
  requireScope(scope, 'catalog:publish');
  await publishVersion('capabilities', WHAT, scope, input.name, input.version, input.is_public, async (values, transaction) => {
    const capability = await CapabilityModel.create(
      {
        organization_id: scope.org.id,
        name: input.name,
        version: input.version,
        version_key: values.version_key,
        is_public: values.is_public,
        description: bundle.description,
        author_name: bundle.author_name,
        license: bundle.license,
        keywords: bundle.keywords,
        origin: bundle.origin,
        manifest: input.manifest,
        component_details: bundle.components,
        component_counts: bundle.component_counts,
        secrets: bundle.secrets,
        file_manifest: bundle.files.map(({ path, sha256, size_bytes }) => ({ path, sha256, size_bytes })),
        artifact_sha256: bundle.artifact_sha256,
        runtime_digest: bundle.runtime_digest,
        created_by: scope.viewer.user.id,
      },
      { transaction },
    );
    if (bundle.files.length) {
      await CapabilityFileModel.bulkCreate(
        bundle.files.map((file) => ({ capability_id: capability.id, path: file.path, sha256: file.sha256, size_bytes: file.size_bytes, content: file.content })),
        { transaction },
      );
    }
  });
  const own = { owner: scope.org.key, name: input.name, own: true };
  return toCapability(CapabilityArtifactDetail, await findArtifactRow<CapabilityRow>('capabilities', DETAIL_SELECT, scope, own, input.version, WHAT), scope.org.id);
}

export async function setCapabilityVisibility(ctx: AppContext, orgKey: string, name: string, isPublic: boolean): Promise<CapabilityArtifactSummary> {
  const { scope, ref } = await setNameVisibility(ctx, orgKey, 'capabilities', WHAT, name, isPublic);
  return toCapability(CapabilityArtifactSummary, await findArtifactRow<CapabilityRow>('capabilities', CAPABILITY_SELECT, scope, ref, null, WHAT), scope.org.id);
}

export async function deleteCapability(ctx: AppContext, orgKey: string, name: string, version: string) {
  return (await deleteVersion(ctx, orgKey, 'capabilities', WHAT, name, version)).deleted;
}

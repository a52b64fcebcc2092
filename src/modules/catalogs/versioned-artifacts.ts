import { UniqueConstraintError, type Transaction } from 'sequelize';
import { AlreadyExistsError, NotFoundError, validationFailure } from '../../core/errors';
import { pageRow, readPage, type PageSize } from '../../core/pagination';
import type { SqlParams } from '../../core/graphql-sql/sql-fields';
import type { AppContext } from '../../core/context';
import { requireScope, resolveOrg, type OrgScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { rowsWithinReply, type ReplyRequest } from '../../core/reply-budget';
import { readFrom, type ArtifactTable, type CatalogListQuery } from './catalogs.sql';
import { isCatalogVersion, versionKey } from './semver-key';

/**
 * The versioned catalogs (datasets, capabilities, tasks) share one life
 * cycle: publish a version, read the latest or one version, list versions,
 * change the name's visibility, delete a version. The latest version of a
 * name is chosen by PostgreSQL (`version_key`, maintained `is_latest`).
 */

/** A name on an organization route: `name` (the organization's own) or `owner/name` (`owner%2Fname` in a path). */
export interface NameRef {
  owner: string;
  name: string;
  own: boolean;
}

export function parseNameRef(scope: OrgScope, raw: string, what: string): NameRef {
  const parts = raw.split('/');
  if (parts.length > 2 || parts.some((part) => !part) || raw.includes('\0')) throw new NotFoundError(what);
  const [owner, name] = parts.length === 2 ? parts : [scope.org.key, parts[0]];
  return { owner, name, own: owner === scope.org.key };
}

/** Writes address the organization's own names only: another owner's name is not found here. */
export function ownNameRef(scope: OrgScope, raw: string, what: string): NameRef {
  const ref = parseNameRef(scope, raw, what);
  if (!ref.own) throw new NotFoundError(what);
  return ref;
}

/** A version argument must be a catalog version: anything else is 422 at `version` (`["path", "version"]` over REST), before any lookup. */
export function checkPathVersion(version: string): void {
  if (!isCatalogVersion(version)) throw validationFailure(['version'], 'Version must be a semantic version (e.g. 1.2.3 or 1.2.3-rc.1)');
}

/** Who may read an artifact row `a`: the organization `$org_id` when it owns it, anyone when it is public. */
export const READABLE = '(a.organization_id = $org_id OR a.is_public)';

/**
 * A `name` filter of a list (`name`, any owner, or `owner/name`): its parts,
 * or null when it can name nothing (more than two segments).
 */
export function nameFilter(value: string): { owner: string | null; name: string } | null {
  const parts = value.split('/');
  if (parts.length > 2) return null;
  return parts.length === 1 ? { owner: null, name: parts[0] } : { owner: parts[0], name: parts[1] };
}

/**
 * The rows of `ref` the caller may read: the organization's own, or another
 * organization's public ones. `a` is the artifact, `o` its organization.
 */
export function refConditions(ref: NameRef, version: string | null): { sql: string; bind: Record<string, unknown> } {
  return {
    sql: `o.key = $ref_owner AND a.name = $ref_name AND ${READABLE}
          AND ${version === null ? 'a.is_latest' : 'a.version = $ref_version'}`,
    bind: { ref_owner: ref.owner, ref_name: ref.name, ...(version === null ? {} : { ref_version: version }) },
  };
}

/** One version (or the latest) with the columns `select` names; 404 when the caller may not read it. */
export async function findArtifactRow<T extends object>(
  table: ArtifactTable,
  select: string,
  scope: OrgScope,
  ref: NameRef,
  version: string | null,
  what: string,
  transaction?: Transaction,
): Promise<T> {
  const condition = refConditions(ref, version);
  const [row] = await plainQuery<T>(
    `SELECT ${select} FROM ${readFrom(table)} a JOIN organizations o ON o.id = a.organization_id WHERE ${condition.sql} LIMIT 1`,
    { org_id: scope.org.id, ...condition.bind },
    { transaction },
  );
  if (!row) throw new NotFoundError(what);
  return row;
}

/** Every version of a readable name, newest first (the strings only). */
/**
 * The select-list column of every version string of the row's name, newest
 * first, read in the same statement (one snapshot) as the latest row, so
 * `versions[0]` is always `latest` even while a version is being published.
 * Every version of a name shares its visibility, so the row being readable
 * makes its versions readable.
 */
export function versionListColumn(table: ArtifactTable): string {
  return `ARRAY(SELECT v.version FROM ${table} v WHERE v.organization_id = a.organization_id AND v.name = a.name ORDER BY v.version_key DESC) AS version_list`;
}

/** Serialises writes to one name (is_latest and visibility stay consistent under concurrency). */
async function lockName(table: ArtifactTable, orgId: string, name: string, transaction: Transaction): Promise<void> {
  await plainQuery(`SELECT pg_advisory_xact_lock(hashtext($key))`, { key: `${table}:${orgId}:${name}` }, { transaction });
}

/** Marks the highest version of the name as the latest, every other one not. */
async function refreshLatest(table: ArtifactTable, orgId: string, name: string, transaction: Transaction): Promise<void> {
  await plainQuery(
    `UPDATE ${table} a SET is_latest = (a.id = top.id)
       FROM (SELECT t.id FROM ${table} t WHERE t.organization_id = $org_id AND t.name = $name ORDER BY t.version_key DESC LIMIT 1) top
      WHERE a.organization_id = $org_id AND a.name = $name AND a.is_latest IS DISTINCT FROM (a.id = top.id)`,
    { org_id: orgId, name },
    { transaction },
  );
}

/**
 * Publishes one version in one transaction: `insert` writes the row (and
 * anything beside it) with the given sortable key and visibility; the unique
 * (organization, name, version) constraint turns a second publish of the same
 * version into 409, also when two arrive at once. Visibility belongs to the
 * name: an explicit `is_public` applies to every version, otherwise the new
 * version takes the name's current visibility (private for a new name).
 */
export async function publishVersion(
  table: ArtifactTable,
  what: string,
  scope: OrgScope,
  name: string,
  version: string,
  isPublic: boolean | null | undefined,
  insert: (values: { version_key: string; is_public: boolean }, transaction: Transaction) => Promise<void>,
): Promise<void> {
  const orgId = scope.org.id;
  try {
    await database().transaction(async (transaction) => {
      await lockName(table, orgId, name, transaction);
      const [current] = await plainQuery<{ is_public: boolean }>(
        `SELECT a.is_public FROM ${table} a WHERE a.organization_id = $org_id AND a.name = $name LIMIT 1`,
        { org_id: orgId, name },
        { transaction },
      );
      const visibility = isPublic ?? current?.is_public ?? false;
      await insert({ version_key: versionKey(version), is_public: visibility }, transaction);
      if (current && current.is_public !== visibility) {
        await plainQuery(
          `UPDATE ${table} SET is_public = $is_public, updated_at = now() WHERE organization_id = $org_id AND name = $name`,
          { org_id: orgId, name, is_public: visibility },
          { transaction },
        );
      }
      await refreshLatest(table, orgId, name, transaction);
    });
  } catch (error) {
    // Only the (organization, name, version) constraint means "already published"; any other unique violation is not this.
    const constraint = (error as { original?: { constraint?: string } }).original?.constraint;
    if (error instanceof UniqueConstraintError && constraint?.endsWith('_version_unique')) {
      throw new AlreadyExistsError(`${what} '${name}' version ${version} already exists`);
    }
    throw error;
  }
}

/**
 * A write to one of the organization's own names: anything else, or a name
 * (version) it has not published, is 404 before a reader's 403.
 */
async function ownWrite(ctx: AppContext, orgKey: string, table: ArtifactTable, what: string, rawName: string, version: string | null) {
  const scope = await resolveOrg(ctx, orgKey);
  const ref = ownNameRef(scope, rawName, what);
  await findArtifactRow(table, 'a.id', scope, ref, version, what);
  requireScope(scope, 'catalog:publish');
  return { scope, ref };
}

/** `PATCH …/{name}/visibility`: every version of one of the organization's names at once. */
export async function setNameVisibility(ctx: AppContext, orgKey: string, table: ArtifactTable, what: string, rawName: string, isPublic: boolean) {
  const { scope, ref } = await ownWrite(ctx, orgKey, table, what, rawName, null);
  await database().transaction(async (transaction) => {
    await lockName(table, scope.org.id, ref.name, transaction);
    const updated = await plainQuery(
      `UPDATE ${table} SET is_public = $is_public, updated_at = now() WHERE organization_id = $org_id AND name = $name RETURNING 1`,
      { org_id: scope.org.id, name: ref.name, is_public: isPublic },
      { transaction },
    );
    if (!updated.length) throw new NotFoundError(what);
  });
  return { scope, ref };
}

/**
 * `DELETE …/{name}/{version}`: one version of one of the organization's names; `latest` moves to the next highest.
 * `alongside` writes what goes with the deletion (a dataset's activity entry) in its transaction, before the row goes.
 */
export async function deleteVersion(
  ctx: AppContext,
  orgKey: string,
  table: ArtifactTable,
  what: string,
  rawName: string,
  version: string,
  alongside?: (deleted: { id: string; scope: OrgScope; ref: NameRef }, transaction: Transaction) => Promise<void>,
) {
  checkPathVersion(version);
  const { scope, ref } = await ownWrite(ctx, orgKey, table, what, rawName, version);
  const deleted = await database().transaction(async (transaction) => {
    await lockName(table, scope.org.id, ref.name, transaction);
    const [row] = await plainQuery<{ id: string }>(
      `SELECT a.id FROM ${table} a WHERE a.organization_id = $org_id AND a.name = $name AND a.version = $version`,
      { org_id: scope.org.id, name: ref.name, version },
      { transaction },
    );
    if (!row) throw new NotFoundError(what);
    await alongside?.({ id: row.id, scope, ref }, transaction);
    await plainQuery(`DELETE FROM ${table} WHERE id = $id`, { id: row.id }, { transaction });
    await refreshLatest(table, scope.org.id, ref.name, transaction);
    return { name: ref.name, version, deleted: true as const };
  });
  return { scope, ref, deleted };
}

/** `page` and `limit` of a catalog list (defaults 1 and the list's own page size). */
export function catalogPage(args: { page?: number | null; limit?: number | null }, size: PageSize): { page: number; limit: number } {
  return { page: args.page ?? 1, limit: args.limit ?? size.fallback };
}

/**
 * A list page's rows and count (readPage), the rows read within the
 * request's reply budget, each counted by the text of the columns it
 * carries (a capability's components, a task's texts: up to a few hundred
 * KB a row, read whether the query asks for them or not).
 */
export function pageAndCount<T extends object>(request: ReplyRequest, query: CatalogListQuery, page: number, limit: number): Promise<{ rows: T[]; total: number }> {
  return readPage(
    page,
    limit,
    async () => Number((await plainQuery<{ total: string }>(query.countSql, query.bind))[0]?.total ?? 0),
    async () => {
      const rows = await rowsWithinReply<T & { sort_key?: unknown; sort_id?: unknown }>(request, {
        rows: `SELECT q.*, octet_length(q::text) AS size
                 FROM (SELECT ${query.columns}, ${query.sortColumns} ${query.from} ORDER BY ${query.order} LIMIT $limit OFFSET $offset) q`,
        order: query.sortedOrder,
        bind: { ...query.bind, limit, offset: (page - 1) * limit },
      });
      // The rows as the list's columns alone: its sort key and id were the read's own.
      return rows.map(({ sort_key: _key, sort_id: _id, ...row }) => row as unknown as T);
    },
  );
}

/**
 * A list page as the compiled reply's root row (core/pagination pageRow):
 * the count first, then the envelope and the page's ids in the list's order.
 */
export async function catalogPageRow(query: CatalogListQuery, params: SqlParams, as: string, page: number, limit: number): Promise<string> {
  const [counted] = await plainQuery<{ total: string }>(query.countSql, query.bind);
  params.named(query.bind);
  return pageRow(params, as, Number(counted?.total ?? 0), page, limit, (limitParam, offsetParam) =>
    `SELECT a.id ${query.from} ORDER BY ${query.order} LIMIT ${limitParam} OFFSET ${offsetParam}`);
}

import { UniqueConstraintError, type Transaction } from 'sequelize';
import { TaskSetModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { AlreadyExistsError, NotFoundError, ValidationError, type ValidationItem } from '../../core/errors';
import { EMBEDDED_LIST_CAP } from '../../core/pagination';
import { requireScope, resolveOrg, type OrgScope } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { CATALOG_NAME_PATTERN, TASK_PAGE, type TaskSetFilterArgs, type TaskSetListArgs, type TaskSetRequest } from './catalogs.inputs';
import { anyOf, catalogListQuery, facetLists, facetSql, newWhere, overlaps, searchIn, type CatalogWhere, type FacetRow } from './catalogs.sql';
import { toTaskSet, type TaskSetRow } from './catalogs.mapper';
import { TaskSetSortBy, type TaskSetDeleteResponse, type TaskSetFacetsResponse, type TaskSetResponse } from './catalogs.types';
import { isCatalogVersion } from './semver-key';
import { catalogPage, ownNameRef, pageAndCount, parseNameRef, type NameRef } from './versioned-artifacts';

const WHAT = 'Task set';

const taskSetColumns = (members: string) => `a.id, a.organization_id, o.key AS org_key, a.name, a.description, ${members}, a.is_public, a.source, a.tags,
  a.created_at, a.updated_at`;

export const TASK_SET_SELECT = taskSetColumns('a.members');

/** A task set as lists (and navigation) read it: its first EMBEDDED_LIST_CAP members and their number; the single read has them all. */
export const TASK_SET_LIST_SELECT = taskSetColumns(`a.members[1:${EMBEDDED_LIST_CAP}] AS members, cardinality(a.members) AS member_count`);

/** A task-set member: `name`, `name@version`, optionally `owner/` in front for another organization's public task. */
export interface MemberRef {
  owner: string | null;
  name: string;
  version: string | null;
}

export function parseMember(member: string): MemberRef | null {
  const match = /^(?:([a-z0-9][a-z0-9-]*)\/)?([^@/]+)(?:@(.+))?$/.exec(member);
  if (!match || !CATALOG_NAME_PATTERN.test(match[2])) return null;
  if (match[3] !== undefined && !isCatalogVersion(match[3])) return null;
  return { owner: match[1] ?? null, name: match[2], version: match[3] ?? null };
}

function parseMembers(members: string[]): MemberRef[] {
  const errors: ValidationItem[] = [];
  const refs = members.map((member, index) => {
    const ref = parseMember(member);
    if (!ref) errors.push({ loc: ['input', 'members', index], msg: 'must be a task name: name or name@version (semver), optionally owner/name', type: 'value_error' });
    return ref!;
  });
  if (errors.length) throw new ValidationError(errors);
  return refs;
}

/** Every member must name a task of the organization or a public one: one statement for all of them. */
async function checkMembersExist(scope: OrgScope, members: string[], refs: MemberRef[], transaction?: Transaction): Promise<void> {
  if (!refs.length) return;
  const missing = await plainQuery<{ ord: string }>(
    `SELECT m.ord FROM unnest($m_owner::text[], $m_name::text[], $m_version::text[]) WITH ORDINALITY m(owner, name, version, ord)
      WHERE NOT EXISTS (
        SELECT 1 FROM tasks t JOIN organizations o ON o.id = t.organization_id
         WHERE t.name = m.name AND (m.version = '' OR t.version = m.version)
           AND (t.organization_id = $org_id OR t.is_public) AND (m.owner = '' OR o.key = m.owner))
      ORDER BY m.ord`,
    {
      org_id: scope.org.id,
      m_owner: refs.map((ref) => ref.owner ?? ''),
      m_name: refs.map((ref) => ref.name),
      m_version: refs.map((ref) => ref.version ?? ''),
    },
    { transaction },
  );
  if (missing.length) {
    throw new ValidationError(
      missing.map((row) => {
        const index = Number(row.ord) - 1;
        return { loc: ['input', 'members', index], msg: `no task '${members[index]}' in this organization or among public tasks`, type: 'value_error' };
      }),
    );
  }
}

function taskSetWhere(orgId: string, args: TaskSetFilterArgs): CatalogWhere {
  const where = newWhere(orgId, args, false);
  searchIn(where, ['a.name', 'a.description'], args.search);
  overlaps(where, 'tags', 'a.tags', args.tags);
  anyOf(where, 'source', 'a.source', args.source);
  if (args.contains) {
    where.bind.f_contains = args.contains;
    where.filters.push({
      name: 'contains',
      sql: `EXISTS (SELECT 1 FROM unnest(a.members) mm WHERE regexp_replace(mm, '^([^/]*/)?([^@]*)(@.*)?$', '\\2') = $f_contains)`,
    });
  }
  return where;
}

const SORTS: Record<TaskSetSortBy, string> = {
  [TaskSetSortBy.name]: 'a.name',
  [TaskSetSortBy.created_at]: 'a.created_at',
  [TaskSetSortBy.updated_at]: 'a.updated_at',
};

export async function listTaskSets(ctx: AppContext, orgKey: string, args: TaskSetListArgs) {
  const { page, limit } = catalogPage(args, TASK_PAGE);
  const scope = await resolveOrg(ctx, orgKey);
  const query = catalogListQuery('task_sets', TASK_SET_LIST_SELECT, taskSetWhere(scope.org.id, args), {
    column: SORTS[args.sort_by ?? TaskSetSortBy.created_at],
    nullable: false,
    direction: args.sort_dir,
  });
  const { rows, total } = await pageAndCount<TaskSetRow>(ctx, query, page, limit);
  return { task_sets: rows.map((row) => toTaskSet(row, scope.org.id)), total, page, limit };
}

export async function taskSetFacets(ctx: AppContext, orgKey: string, args: TaskSetFilterArgs): Promise<TaskSetFacetsResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const where = taskSetWhere(scope.org.id, args);
  const sql = facetSql('task_sets', ['id', 'name', 'description', 'members', 'source', 'tags'], where, [
    { name: 'sources', value: 'a.source', filter: 'source' },
    { name: 'tags', value: 'a.tags', array: true, filter: 'tags' },
  ]);
  const { lists, numbers } = facetLists(await plainQuery<FacetRow>(sql, where.bind));
  return {
    sources: lists.get('sources') ?? [],
    tags: lists.get('tags') ?? [],
    total: numbers.get('total') ?? 0,
    filtered_total: numbers.get('filtered_total') ?? 0,
  };
}

async function findTaskSet(scope: OrgScope, ref: NameRef, transaction?: Transaction): Promise<TaskSetRow> {
  const [row] = await plainQuery<TaskSetRow>(
    `SELECT ${TASK_SET_SELECT} FROM task_sets a JOIN organizations o ON o.id = a.organization_id
      WHERE o.key = $owner AND a.name = $name AND (a.organization_id = $org_id OR a.is_public)`,
    { org_id: scope.org.id, owner: ref.owner, name: ref.name },
    { transaction },
  );
  if (!row) throw new NotFoundError(WHAT);
  return row;
}

/** `name` (the organization's) or `owner/name` (another organization's public set). */
export async function getTaskSet(ctx: AppContext, orgKey: string, name: string): Promise<TaskSetResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  return toTaskSet(await findTaskSet(scope, parseNameRef(scope, name, WHAT)), scope.org.id);
}

const uniqueMembers = (members: string[]) => [...new Set(members)];

function conflict(error: unknown, name: string): never {
  if (error instanceof UniqueConstraintError) throw new AlreadyExistsError(`A task set named '${name}' already exists`);
  throw error;
}

export async function createTaskSet(ctx: AppContext, orgKey: string, input: TaskSetRequest): Promise<TaskSetResponse> {
  const members = uniqueMembers(input.members);
  const refs = parseMembers(members); // 422 before the tenant lookup
  const scope = await resolveOrg(ctx, orgKey);
  requireScope(scope, 'catalog:publish');
  await checkMembersExist(scope, members, refs);
  try {
    await TaskSetModel.create({
      organization_id: scope.org.id,
      name: input.name,
      description: input.description ?? null,
      members,
      is_public: input.is_public ?? false,
      source: input.source ?? null,
      tags: input.tags ?? null,
      created_by: scope.viewer.user.id,
    });
  } catch (error) {
    conflict(error, input.name);
  }
  return toTaskSet(await findTaskSet(scope, { owner: scope.org.key, name: input.name, own: true }), scope.org.id);
}

/** PUT: the whole set is replaced (a new `name` renames it). */
export async function replaceTaskSet(ctx: AppContext, orgKey: string, name: string, input: TaskSetRequest): Promise<TaskSetResponse> {
  const members = uniqueMembers(input.members);
  const refs = parseMembers(members);
  const scope = await resolveOrg(ctx, orgKey);
  const current = await findTaskSet(scope, ownNameRef(scope, name, WHAT));
  requireScope(scope, 'catalog:publish');
  await checkMembersExist(scope, members, refs);
  try {
    await TaskSetModel.update(
      {
        name: input.name,
        description: input.description ?? null,
        members,
        is_public: input.is_public ?? false,
        source: input.source ?? null,
        tags: input.tags ?? null,
      },
      { where: { id: current.id } },
    );
  } catch (error) {
    conflict(error, input.name);
  }
  return toTaskSet(await findTaskSet(scope, { owner: scope.org.key, name: input.name, own: true }), scope.org.id);
}

export async function setTaskSetVisibility(ctx: AppContext, orgKey: string, name: string, isPublic: boolean): Promise<TaskSetResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const ref = ownNameRef(scope, name, WHAT);
  const current = await findTaskSet(scope, ref);
  requireScope(scope, 'catalog:publish');
  await TaskSetModel.update({ is_public: isPublic }, { where: { id: current.id } });
  return toTaskSet(await findTaskSet(scope, ref), scope.org.id);
}

export async function deleteTaskSet(ctx: AppContext, orgKey: string, name: string): Promise<TaskSetDeleteResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const current = await findTaskSet(scope, ownNameRef(scope, name, WHAT));
  requireScope(scope, 'catalog:publish');
  await TaskSetModel.destroy({ where: { id: current.id } });
  return { name: current.name, deleted: true };
}

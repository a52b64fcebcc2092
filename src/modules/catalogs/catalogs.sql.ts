import { TOP_VALUES } from '../../core/pagination';
import { likePattern } from '../sessions/sessions.sql';
import type { CatalogScopeArgs } from './catalogs.inputs';
import { CatalogSortDirection } from './catalogs.types';
import { TASKS_READ_BY_ROUTE } from './task-verification.policy';

/**
 * SQL shared by the catalogs (datasets, capabilities, tasks, task sets): the
 * visibility scope, filters, sorted pages and facets. Every statement carries
 * the caller's organization ($org_id); another organization's rows are only
 * ever read when public.
 */
export type ArtifactTable = 'datasets' | 'capabilities' | 'tasks';
export type CatalogTable = ArtifactTable | 'task_sets';

/**
 * What a read of `table` selects from as `a`: the table itself, except tasks,
 * read with the route's organization as their reader (task-verification.policy).
 */
export function readFrom(table: CatalogTable): string {
  return table === 'tasks' ? TASKS_READ_BY_ROUTE : table;
}

/** One filter parameter as a predicate over alias `a`, with its bind values. */
export interface CatalogFilter {
  name: string;
  sql: string;
}

export interface CatalogWhere {
  /** Scope (and latest version) conditions: what `total` counts. */
  scope: string[];
  /** Conditions applied to every facet dimension (search). */
  always: string[];
  /** Filters a facet dimension excludes when it is its own. */
  filters: CatalogFilter[];
  bind: Record<string, unknown>;
}

/**
 * Which rows a list or facet covers: the organization's own (default), plus
 * other organizations' public ones (`include_public`), or the public ones of
 * every organization (`public_only`).
 */
export function scopeSql(alias: string, args: CatalogScopeArgs): string {
  if (args.public_only) return `${alias}.is_public`;
  if (args.include_public) return `(${alias}.organization_id = $org_id OR ${alias}.is_public)`;
  return `${alias}.organization_id = $org_id`;
}

export function newWhere(orgId: string, args: CatalogScopeArgs, versioned: boolean): CatalogWhere {
  const scope = [scopeSql('a', args)];
  if (versioned) scope.unshift('a.is_latest');
  return { scope, always: [], filters: [], bind: { org_id: orgId } };
}

const distinct = (values: string[]) => [...new Set(values)];

/** `column = ANY(values)`: values of one parameter OR-ed. */
export function anyOf(where: CatalogWhere, name: string, column: string, values: string[] | null | undefined): void {
  if (!values?.length) return;
  where.bind[`f_${name}`] = distinct(values);
  where.filters.push({ name, sql: `${column} = ANY($f_${name}::text[])` });
}

/** `column && values`: an array column overlapping the values. */
export function overlaps(where: CatalogWhere, name: string, column: string, values: string[] | null | undefined): void {
  if (!values?.length) return;
  where.bind[`f_${name}`] = distinct(values);
  where.filters.push({ name, sql: `${column} && $f_${name}::text[]` });
}

/** Case-insensitive substring match on any of the columns (LIKE wildcards escaped). */
export function searchIn(where: CatalogWhere, columns: string[], text: string | null | undefined): void {
  if (!text) return;
  where.bind.search = likePattern(text);
  where.always.push(`(${columns.map((column) => `${column} ILIKE $search`).join(' OR ')})`);
}

export function whereSql(where: CatalogWhere, except?: string): string {
  const parts = [...where.scope, ...where.always, ...where.filters.filter((filter) => filter.name !== except).map((filter) => filter.sql)];
  return parts.join('\n AND ');
}

/** ORDER BY terms of a page: the sort column (nulls last), then the id, so the order is total. */
function orderTerms(column: string, id: string, direction: CatalogSortDirection | null | undefined, nullable: boolean): string[] {
  const dir = direction === CatalogSortDirection.asc ? 'ASC' : 'DESC';
  return [`${column} ${dir}${nullable ? ' NULLS LAST' : ''}`, `${id} ${dir}`];
}

/**
 * The statement parts of a catalog list page: `table` rows under `a` (readFrom) joined
 * to their organization, filtered by `where`, ordered by `column` then id.
 */
export interface CatalogListQuery {
  columns: string;
  from: string;
  order: string;
  /** The sort column and id selected beside the columns as `sort_key` and `sort_id`, and the list's order over them (a read cut at the reply budget). */
  sortColumns: string;
  sortedOrder: string[];
  countSql: string;
  bind: Record<string, unknown>;
}

export function catalogListQuery(
  table: CatalogTable,
  columns: string,
  where: CatalogWhere,
  sort: { column: string; nullable: boolean; direction: CatalogSortDirection | null | undefined },
): CatalogListQuery {
  const condition = whereSql(where);
  return {
    columns,
    from: `FROM ${readFrom(table)} a JOIN organizations o ON o.id = a.organization_id WHERE ${condition}`,
    order: orderTerms(sort.column, 'a.id', sort.direction, sort.nullable).join(', '),
    sortColumns: `${sort.column} AS sort_key, a.id AS sort_id`,
    sortedOrder: orderTerms('sort_key', 'sort_id', sort.direction, sort.nullable),
    countSql: `SELECT count(*) AS total FROM ${table} a WHERE ${condition}`,
    bind: where.bind,
  };
}

export interface FacetDimension {
  /** The dimension's name in the reply rows. */
  name: string;
  /** The value expression over alias `a` (a text column or `unnest(array column)`). */
  value: string;
  /** An array column: one count per element. */
  array?: boolean;
  /** The filter this dimension excludes (its own). */
  filter: string;
}

export interface FacetRow {
  dim: string;
  value: string | null;
  n: string;
}

/**
 * Every facet of a catalog list in one statement: the rows in scope are read
 * once (MATERIALIZED), then counted per dimension with every other filter
 * applied and the dimension's own excluded, beside `total` (in scope,
 * unfiltered) and `filtered_total` (every filter). `extra` adds more
 * `(dim, value, n)` rows (the task scope counts).
 */
export function facetSql(table: CatalogTable, columns: string[], where: CatalogWhere, dims: FacetDimension[], extra: string[] = []): string {
  const conditions = (except?: string) => {
    const parts = [...where.always, ...where.filters.filter((filter) => filter.name !== except).map((filter) => filter.sql)];
    return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  };
  const parts = [
    `SELECT 'total'::text AS dim, NULL::text AS value, count(*) AS n FROM base a`,
    `SELECT 'filtered_total', NULL, count(*) FROM base a ${conditions()}`,
    ...dims.map((dim) => {
      const from = dim.array ? `base a CROSS JOIN LATERAL unnest(${dim.value}) v(value)` : `base a CROSS JOIN LATERAL (SELECT ${dim.value}) v(value)`;
      const filter = conditions(dim.filter);
      return `(SELECT '${dim.name}', v.value, count(*) FROM ${from} ${filter ? `${filter} AND` : 'WHERE'} v.value IS NOT NULL
                GROUP BY v.value ORDER BY count(*) DESC, v.value COLLATE "C" LIMIT ${TOP_VALUES})`;
    }),
    ...extra,
  ];
  return `WITH base AS MATERIALIZED (SELECT ${columns.map((column) => `a.${column}`).join(', ')} FROM ${table} a WHERE ${where.scope.join(' AND ')})
    ${parts.join('\n    UNION ALL ')}`;
}

/**
 * Facet rows shaped as `[{value, count}]` per dimension, by count then value.
 * The SQL picks each dimension's top values in the same order (values
 * compared byte-wise, COLLATE "C", as this sort compares code units), so the
 * cap and the order agree.
 */
export function facetLists(rows: FacetRow[]): { lists: Map<string, { value: string; count: number }[]>; numbers: Map<string, number> } {
  const lists = new Map<string, { value: string; count: number }[]>();
  const numbers = new Map<string, number>();
  for (const row of rows) {
    if (row.value === null) {
      numbers.set(row.dim, Number(row.n));
      continue;
    }
    const list = lists.get(row.dim) ?? [];
    list.push({ value: row.value, count: Number(row.n) });
    lists.set(row.dim, list);
  }
  const byCount = (a: { value: string; count: number }, b: { value: string; count: number }) =>
    b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
  for (const list of lists.values()) list.sort(byCount);
  return { lists, numbers };
}

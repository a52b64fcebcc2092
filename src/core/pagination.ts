import { Max, Min } from 'class-validator';
import type { FindOptions, WhereOptions } from 'sequelize';
import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { validationFailure } from './errors';
import { Sql, type SqlList, type SqlParams } from './graphql-sql/sql-fields';

/** The page envelope of offset-paged lists: total, page, limit, total_pages, has_next, has_previous. */
export function pageInfo(total: number, page: number, limit: number) {
  const totalPages = total === 0 ? 0 : Math.ceil(total / limit);
  return { total, page, limit, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 };
}

/**
 * A page reply answered by the engine (core/graphql-sql): the FROM of its
 * root's one row, the envelope of `pageInfo` (the page's fields read it) and
 * the page's ids in order as `ids`, which `pageItems` turns into the rows.
 */
export function pageRow(params: SqlParams, as: string, total: number, page: number, limit: number, idsSql: (limit: string, offset: string) => string): string {
  checkPageDepth(page, limit, total);
  const envelope = Object.entries(pageInfo(total, page, limit)).map(
    ([key, value]) => `${params.add(value)}::${typeof value === 'boolean' ? 'boolean' : 'int'} AS ${key}`,
  );
  // A page past the end reads no row (LIMIT 0), however deep its OFFSET.
  const offset = (page - 1) * limit;
  return `(SELECT ${envelope.join(', ')}, ARRAY(${idsSql(params.add(offset < total ? limit : 0), params.add(offset))}) AS ids) ${as}`;
}

/** The items field of a page reply (declared with @Sql): the rows of `table` whose ids pageRow chose, in its order. */
export function pageItems(table: string): SqlList {
  return {
    kind: 'list',
    rows: (row, as) => ({
      select: `SELECT ${as}.*, page.ord AS "ord$" FROM unnest(${row}.ids) WITH ORDINALITY AS page(id, ord) JOIN ${table} ${as} ON ${as}.id = page.id`,
      orderBy: `${as}."ord$"`,
    }),
  };
}

/** The page envelope's fields, shared by every offset-paged list reply (filled by `pageInfo`). */
@ObjectType()
export abstract class PageEnvelope {
  @Sql()
  @Field(() => Int, { description: 'Items matching the filters, over every page.' })
  total: number;

  @Sql()
  @Field(() => Int, { description: '1-indexed.' })
  page: number;

  @Sql()
  @Field(() => Int, { description: 'Items per page.' })
  limit: number;

  @Sql()
  @Field(() => Int, { description: 'ceil(total / limit); 0 when there are no items.' })
  total_pages: number;

  @Sql()
  @Field(() => Boolean, { description: 'Whether a page follows this one (page < total_pages).' })
  has_next: boolean;

  @Sql()
  @Field(() => Boolean, { description: 'Whether a page precedes this one (page > 1).' })
  has_previous: boolean;
}

/** How deep an offset page may reach: deeper pages would scan this many rows to skip them. */
export const MAX_OFFSET_ROWS = 10_000;

/**
 * A page of a list with its total (decisions §4: a page past the end is
 * empty, with true totals): `count` and `rows` (the page's LIMIT and OFFSET
 * read) run side by side. A page that starts past MAX_OFFSET_ROWS would
 * scan that many rows to skip them: it is counted first, answered empty
 * when it is past the end, and refused (422 at `page`: narrow the filters)
 * when rows are there.
 */
export async function readPage<T>(page: number, limit: number, count: () => Promise<number>, rows: () => Promise<T[]>): Promise<{ total: number; rows: T[] }> {
  if ((page - 1) * limit <= MAX_OFFSET_ROWS) {
    const [total, found] = await Promise.all([count(), rows()]);
    return { total, rows: found };
  }
  const total = await count();
  checkPageDepth(page, limit, total);
  return { total, rows: [] };
}

/**
 * A page of a model's rows matching `where`, newest first (then by id), with
 * their total: readPage over the model's count and findAll.
 */
export function readNewestPage<T>(
  model: { count(options: { where: WhereOptions }): Promise<number>; findAll(options: FindOptions): Promise<T[]> },
  where: WhereOptions,
  page: number,
  limit: number,
): Promise<{ total: number; rows: T[] }> {
  return readPage(page, limit, () => model.count({ where }), () => model.findAll({ where, order: [['created_at', 'DESC'], ['id', 'DESC']], limit, offset: (page - 1) * limit }));
}

/** 422 at `page` for a page that starts past MAX_OFFSET_ROWS while the list (`total` rows) has rows there (readPage, pageRow). */
function checkPageDepth(page: number, limit: number, total: number): void {
  const offset = (page - 1) * limit;
  if (offset > MAX_OFFSET_ROWS && offset < total) {
    throw validationFailure(['page'], `Input should be at most ${Math.floor(MAX_OFFSET_ROWS / limit) + 1} at this limit (pages reach ${MAX_OFFSET_ROWS} rows deep while the list has rows there; narrow the filters)`, 'less_than_equal');
  }
}

/** What every list's `page` says of itself (PageArg). */
export const PAGE_DESCRIPTION = `Page number, from 1 (default 1). A page past the last is empty, with the true totals. A page that starts more than ${MAX_OFFSET_ROWS} rows in while there are rows there is 422 (narrow the filters).`;
/**
 * The `page` argument of every offset-paged list, declared once: from 1
 * (the default); readPage answers a page deeper than MAX_OFFSET_ROWS where
 * the list is read.
 */
export function PageArg(): PropertyDecorator {
  return (target, key) => {
    Field(() => Int, { nullable: true, defaultValue: 1, description: PAGE_DESCRIPTION })(target, key);
    Min(1)(target, key);
  };
}

/** The largest page of a list that has no page envelope (a bare array or `{workspaces}`). */
export const MAX_LIST_PAGE = 100;

/**
 * The most elements of a large embedded list (an evaluation's skipped
 * members, a task set's members) that one item of a list reply carries; the
 * single read carries them all, and a count beside says how many there are.
 * A list of 100 items otherwise embeds up to 2,000,000 of them.
 */
export const EMBEDDED_LIST_CAP = 100;

/**
 * The most entries a reply's counts by value keep (facets, the label keys of
 * the session facets, a trace's span types, an assessment's analytics by
 * category): the most frequent, ties by value. Writes bring values without
 * bound in number; a reply of their counts keeps its top ones.
 */
export const TOP_VALUES = 100;

/**
 * The most values of a repeatable filter of a list (`kind`, `status`,
 * `agent`, …; each becomes one array bound to its statement): 422
 * `too_long` past it. Decisions §4: a repeated query parameter may carry at
 * least 1000 values.
 */
export const MAX_FILTER_VALUES = 1000;

/** A list's page size: 1 to `max`, `fallback` when none is given. */
export interface PageSize {
  max: number;
  fallback: number;
}

/**
 * The page-size argument of a list (`limit` or `page_size`), declared once
 * from its PageSize: its bounds (422 outside them), its default (in the
 * schema and the OpenAPI document, so a generated client knows it) and the
 * sentence that says both (`what`, then the range and the default, then
 * `note`). Where the list is read, a size given as null is the same
 * PageSize's `fallback`.
 */
export function PageSizeArg(size: PageSize, what = 'Items per page', note?: string): PropertyDecorator {
  const count = (value: number) => value.toLocaleString('en-US');
  return (target, key) => {
    Field(() => Int, { nullable: true, defaultValue: size.fallback, description: `${what}, 1 to ${count(size.max)} (default ${count(size.fallback)})${note ? `; ${note}` : ''}.` })(target, key);
    Min(1)(target, key);
    Max(size.max)(target, key);
  };
}

/** The page of a list that has no page envelope (a bare array or `{workspaces}`): at most, and by default, MAX_LIST_PAGE. */
export const LIST_PAGE: PageSize = { max: MAX_LIST_PAGE, fallback: MAX_LIST_PAGE };

/**
 * `page` and `limit` of a list that replies with a bare array: no reply
 * embeds an unbounded list. A shorter page than `limit` is the last one.
 */
@ArgsType()
export class ListPageArgs {
  @PageArg()
  page?: number | null;

  @PageSizeArg(LIST_PAGE)
  limit?: number | null;
}

/**
 * LIMIT and OFFSET of a page of a bare-array list. These lists are the
 * caller's own and short (members, keys, invitations, workspaces, projects,
 * an assessment's reports): a deep page scans at most their rows, and a
 * page past the end is empty.
 */
export function pageWindow(args: ListPageArgs = {}): { limit: number; offset: number } {
  const limit = args.limit ?? LIST_PAGE.fallback;
  return { limit, offset: ((args.page ?? 1) - 1) * limit };
}

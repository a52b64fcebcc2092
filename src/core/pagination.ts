import { Max, Min } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';

/** The page envelope of offset-paged lists: total, page, limit, total_pages, has_next, has_previous. */
export function pageInfo(total: number, page: number, limit: number) {
  const totalPages = total === 0 ? 0 : Math.ceil(total / limit);
  return { total, page, limit, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 };
}

/** The largest page of a list that has no page envelope (a bare array or `{workspaces}`). */
export const MAX_LIST_PAGE = 100;

/**
 * `page` and `limit` of a list that replies with a bare array: no reply
 * embeds an unbounded list. A shorter page than `limit` is the last one.
 */
@ArgsType()
export class ListPageArgs {
  @Field(() => Int, { nullable: true, defaultValue: 1, description: 'Page number, from 1.' })
  @Min(1)
  page?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: MAX_LIST_PAGE, description: `Items per page, 1 to ${MAX_LIST_PAGE} (default ${MAX_LIST_PAGE}).` })
  @Min(1)
  @Max(MAX_LIST_PAGE)
  limit?: number | null;
}

/** LIMIT and OFFSET of a list page. */
export function pageWindow(args: ListPageArgs = {}): { limit: number; offset: number } {
  const limit = args.limit ?? MAX_LIST_PAGE;
  return { limit, offset: ((args.page ?? 1) - 1) * limit };
}

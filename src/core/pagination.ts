/** The page envelope of offset-paged lists: total, page, limit, total_pages, has_next, has_previous. */
export function pageInfo(total: number, page: number, limit: number) {
  const totalPages = total === 0 ? 0 : Math.ceil(total / limit);
  return { total, page, limit, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 };
}

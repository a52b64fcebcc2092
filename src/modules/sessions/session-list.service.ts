import type { RecordOf, SessionModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { pageRow, readPage } from '../../core/pagination';
import type { SqlRoot } from '../../core/graphql-sql/sql-fields';
import { resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { parseLabelFilters } from './labels';
import { SESSION_PAGE, type SessionListArgs } from './sessions.inputs';
import { sessionOfRow } from './session-relations';
import { sessionCountSql, sessionPageIdsSql, sessionPageSql, sessionWhere } from './sessions.sql';
import { SessionSortBy, SortDirection } from './sessions.types';

export interface SessionPage {
  sessions: RecordOf<SessionModel>[];
  total: number;
  page: number;
  limit: number;
}

/**
 * The list's statements are prepared (plainQuery `prepare`): their columns are
 * a count, JSON values and a JSON text, whose types no new column changes.
 */
const PREPARED = { prepare: true };

/** The list's filters, page and order, after the argument checks and the tenant check. */
async function sessionListQuery(ctx: AppContext, org: string, ws: string, args: SessionListArgs) {
  const labels = parseLabelFilters(args.label ?? [], ['label']); // 422 before the tenant lookup
  const scope = await resolveWorkspace(ctx, org, ws);
  const where = sessionWhere(scope.workspace.id, scope.viewer.user.id, args, labels);
  const page = args.page ?? 1;
  const limit = args.limit ?? SESSION_PAGE.fallback;
  return { where, page, limit, sortBy: args.sort_by ?? SessionSortBy.updated_at, sortDir: args.sort_dir ?? SortDirection.desc };
}

export async function listSessions(
  ctx: AppContext,
  org: string,
  ws: string,
  args: SessionListArgs,
): Promise<SessionPage> {
  const { where, page, limit, sortBy, sortDir } = await sessionListQuery(ctx, org, ws, args);
  const { rows, total } = await readPage(
    page,
    limit,
    async () => Number((await plainQuery<{ total: string }>(sessionCountSql(where.sql), where.bind, PREPARED))[0]?.total ?? 0),
    // Plain rows: the list maps them straight to GraphQL types, no model instances.
    () => plainQuery<Record<string, unknown>>(sessionPageSql(where.sql, sortBy, sortDir), { ...where.bind, limit, offset: (page - 1) * limit }, PREPARED),
  );
  return { sessions: rows.map(sessionOfRow), total, page, limit };
}

/**
 * The list as the compiled reply's root (SqlRoot of `sessions`): the same
 * checks, the count, then one row of the page envelope (pageInfo) and the
 * page's session ids in order, which SessionListResponse.sessions reads.
 */
export const SESSION_LIST_ROOT: SqlRoot = {
  async from(ctx, args, params, as) {
    const { where, page, limit, sortBy, sortDir } = await sessionListQuery(ctx, String(args.org), String(args.workspace), args as SessionListArgs);
    const [counted] = await plainQuery<{ total: string }>(sessionCountSql(where.sql), where.bind, PREPARED);
    params.named(where.bind);
    return pageRow(params, as, Number(counted?.total ?? 0), page, limit, (limitParam, offsetParam) => sessionPageIdsSql(where.sql, sortBy, sortDir, limitParam, offsetParam));
  },
};

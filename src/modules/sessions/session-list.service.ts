import type { RecordOf, SessionModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { checkPageDepth } from '../../core/pagination';
import { resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { parseLabelFilters } from './labels';
import type { SessionListArgs } from './sessions.inputs';
import { primeSessionRow, type SessionJoins } from './session-relations';
import { sessionCountSql, sessionPageSql, sessionWhere } from './sessions.sql';
import { SessionSortBy, SortDirection } from './sessions.types';

export interface SessionPage {
  sessions: RecordOf<SessionModel>[];
  total: number;
  page: number;
  limit: number;
}

export async function listSessions(
  ctx: AppContext,
  org: string,
  ws: string,
  args: SessionListArgs,
  joins: SessionJoins = { relations: false, usage: false },
): Promise<SessionPage> {
  const labels = parseLabelFilters(args.label ?? [], ['label']); // 422 before the tenant lookup
  const scope = await resolveWorkspace(ctx, org, ws);
  const where = sessionWhere(scope.workspace.id, scope.viewer.user.id, args, labels);
  const page = args.page ?? 1;
  const limit = args.limit ?? 20;
  checkPageDepth(page, limit);
  const pageSql = sessionPageSql(where.sql, args.sort_by ?? SessionSortBy.updated_at, args.sort_dir ?? SortDirection.desc, joins);
  const [counted, sessions] = await Promise.all([
    plainQuery<{ total: string }>(sessionCountSql(where.sql), where.bind),
    // Plain rows: the list maps them straight to GraphQL types, no model instances.
    plainQuery<Record<string, unknown>>(pageSql, { ...where.bind, limit, offset: (page - 1) * limit }),
  ]);
  return { sessions: sessions.map((row) => primeSessionRow(ctx, row)), total: Number(counted[0]?.total ?? 0), page, limit };
}

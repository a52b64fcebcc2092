import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import { SessionGroupModel } from '../../../models';
import { database } from '../../db/database';
import { tenantFilter, type TenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { visibleSql } from '../sessions/session.policy';

/**
 * The query cost of one group's counts (graphql-limits.ts): STATS_SQL
 * aggregates every visible session of the group, about 2 ms per group at
 * 1,000,000 sessions (`npm run bench -- limits`).
 */
export const GROUP_STATS_COST = 80;

/** Counts derived from a group's sessions. */
export interface SessionGroupStats {
  session_count: number;
  active_session_count: number;
  message_count: number;
  total_tokens: number;
  last_activity_at: Date | null;
}

export const EMPTY_GROUP_STATS: SessionGroupStats = {
  session_count: 0,
  active_session_count: 0,
  message_count: 0,
  total_tokens: 0,
  last_activity_at: null,
};

/**
 * Stats of any number of groups in one statement: session counts and message
 * totals per group, tokens summed from the messages of its sessions. Only the
 * sessions the viewer can see count (own ones and shared ones), like
 * `session_group.sessions` and the facets.
 */
const statsSql = (tenant: TenantFilter) => `
  SELECT s.group_id,
         count(*) AS session_count,
         count(*) FILTER (WHERE s.archived_at IS NULL) AS active_session_count,
         coalesce(sum(s.message_count), 0) AS message_count,
         coalesce(sum(t.tokens), 0) AS total_tokens,
         max(coalesce(s.last_message_at, s.created_at)) AS last_activity_at
    FROM sessions s
    LEFT JOIN LATERAL (
      SELECT sum(coalesce(m.input_tokens, 0) + coalesce(m.output_tokens, 0)) AS tokens
        FROM session_messages m
       WHERE m.session_id = s.id AND m.has_usage
    ) t ON TRUE
   WHERE s.group_id = ANY($ids::uuid[]) AND ${tenant.where('s')} AND ${visibleSql('s')}
   GROUP BY s.group_id`;

interface StatsRow {
  group_id: string;
  session_count: string;
  active_session_count: string;
  message_count: string;
  total_tokens: string;
  last_activity_at: Date | null;
}

export function createSessionGroupLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;
  return {
    sessionGroupById: new DataLoader<string, SessionGroupModel | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await database().query<SessionGroupModel>(
        `SELECT g.* FROM session_groups g WHERE g.id = ANY($ids::uuid[]) AND ${tenant.where('g')}`,
        { bind: { ...tenant.bind, ids: [...ids] }, type: QueryTypes.SELECT, model: SessionGroupModel, mapToModel: true },
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),

    sessionGroupStats: new DataLoader<string, SessionGroupStats>(async (ids) => {
      if (!tenant) return ids.map(() => EMPTY_GROUP_STATS);
      const rows = await database().query<StatsRow>(statsSql(tenant), {
        bind: { ...tenant.bind, ids: [...ids] },
        type: QueryTypes.SELECT,
      });
      const byId = new Map(
        rows.map((row) => [
          row.group_id,
          {
            session_count: Number(row.session_count),
            active_session_count: Number(row.active_session_count),
            message_count: Number(row.message_count),
            total_tokens: Number(row.total_tokens),
            last_activity_at: row.last_activity_at ? new Date(row.last_activity_at) : null,
          },
        ]),
      );
      return ids.map((id) => byId.get(id) ?? EMPTY_GROUP_STATS);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createSessionGroupLoaders> {}
}

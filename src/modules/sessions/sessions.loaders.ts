import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { ProjectModel, RecordOf, SessionMessageModel, SessionModel } from '../../../models';
import { database } from '../../db/database';
import { tenantFilter, type TenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import type { SessionUsageResponse } from './sessions.types';
import { visibleSql } from './session.policy';

export const EMPTY_USAGE: SessionUsageResponse = {
  compaction_count: 0,
  current_cache_creation_input_tokens: 0,
  current_cache_read_input_tokens: 0,
  current_cost_usd: null,
  current_input_tokens: 0,
  current_message_count: 0,
  current_output_tokens: 0,
  current_tool_call_count: 0,
  last_generation_input_tokens: null,
  total_cache_creation_input_tokens: 0,
  total_cache_read_input_tokens: 0,
  total_cost_usd: null,
  total_input_tokens: 0,
  total_message_count: 0,
  total_output_tokens: 0,
  total_tool_call_count: 0,
};

const TOKEN_COLUMNS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/** Window and cap of recent_message_count. */
export const RECENT_WINDOW_HOURS = 24;
export const RECENT_MAX = 25;

/** What the per-request `sessionStats` loader derives from a session's messages. */
export interface SessionStats {
  usage: SessionUsageResponse;
  /** Messages of the last 24 h, at most 25; null for a session without transcript messages. */
  recent_message_count: number | null;
}

export const EMPTY_STATS: SessionStats = { usage: EMPTY_USAGE, recent_message_count: null };

/**
 * Usage of many sessions in one statement: one aggregate over the messages
 * (total_* over every message, current_* over non-compacted ones; costs null
 * when no message of the session reported one, current cost 0 once all
 * costed messages are compacted; recent = messages of the last 24 h, capped),
 * then the newest message with usage per session through the partial index
 * session_messages_usage_idx (LIMIT 1 each, not an array of all of them).
 */
/** The usage aggregate over a session's messages `m` (one row per group of `m`). */
export const USAGE_AGGREGATE = `
           count(*) AS total_message_count,
           count(*) FILTER (WHERE m.compacted_at IS NULL) AS current_message_count,
           count(*) FILTER (WHERE m.is_summary) AS compaction_count,
           ${TOKEN_COLUMNS.map(
             (column) => `coalesce(sum(m.${column}), 0) AS total_${column},
           coalesce(sum(m.${column}) FILTER (WHERE m.compacted_at IS NULL), 0) AS current_${column},`,
           ).join('\n           ')}
           coalesce(sum(m.tool_call_count), 0) AS total_tool_call_count,
           coalesce(sum(m.tool_call_count) FILTER (WHERE m.compacted_at IS NULL), 0) AS current_tool_call_count,
           sum(m.cost_usd) AS total_cost_usd,
           CASE WHEN count(m.cost_usd) > 0
                THEN coalesce(sum(m.cost_usd) FILTER (WHERE m.compacted_at IS NULL), 0) END AS current_cost_usd,
           LEAST(${RECENT_MAX}, count(*) FILTER (WHERE m.created_at > now() - make_interval(hours => ${RECENT_WINDOW_HOURS})))
             AS recent_message_count`;

/** The input tokens of the newest message with usage of session `sessionExpr`, through session_messages_usage_idx. */
export const lastGenerationSql = (sessionExpr: string, orgExpr?: string) =>
  `SELECT x.input_tokens FROM session_messages x WHERE x.session_id = ${sessionExpr}${orgExpr ? ` AND x.organization_id = ${orgExpr}` : ''}
      AND x.has_usage ORDER BY x.seq DESC LIMIT 1`;

const usageSql = (tenant: TenantFilter) => `
  WITH agg AS (
    SELECT m.session_id, ${USAGE_AGGREGATE}
      FROM session_messages m
     WHERE m.session_id = ANY($ids::uuid[]) AND ${tenant.where('m', { workspace: false })}
     GROUP BY m.session_id
  )
  SELECT agg.*, last.input_tokens AS last_generation_input_tokens
    FROM agg
    LEFT JOIN LATERAL (${lastGenerationSql('agg.session_id')}) last ON TRUE`;

export type UsageRow = Record<keyof SessionUsageResponse, string | number | null> & { recent_message_count: string | number };

/** A usage row as the GraphQL type; a session without transcript messages has the empty stats. */
export function toStats(row: UsageRow): SessionStats {
  if (Number(row.total_message_count) === 0) return EMPTY_STATS;
  const out = { ...EMPTY_USAGE } as Record<string, number | null>;
  for (const key of Object.keys(EMPTY_USAGE)) {
    const value = row[key as keyof SessionUsageResponse];
    out[key] = value == null ? (key.endsWith('cost_usd') || key === 'last_generation_input_tokens' ? null : 0) : Number(value);
  }
  return { usage: out as unknown as SessionUsageResponse, recent_message_count: Number(row.recent_message_count) };
}

export interface MessagesKey {
  session_id: string;
  include_compacted: boolean;
  limit: number;
}

export interface ChildSessionsKey {
  parent_id: string;
  limit: number;
}

/** Groups keys by everything but the parent id, so each distinct shape is one statement. */
async function batchByShape<K extends { limit: number }, V>(
  keys: readonly K[],
  shape: (key: K) => string,
  run: (keys: K[]) => Promise<Map<K, V>>,
  empty: () => V,
): Promise<V[]> {
  const byShape = new Map<string, K[]>();
  for (const key of keys) {
    const list = byShape.get(shape(key)) ?? [];
    list.push(key);
    byShape.set(shape(key), list);
  }
  const results = new Map<K, V>();
  await Promise.all(
    [...byShape.values()].map(async (group) => {
      for (const [key, value] of await run(group)) results.set(key, value);
    }),
  );
  return keys.map((key) => results.get(key) ?? empty());
}

/** Batched look-ups for session fields and session navigation (GraphQL). */
export function createSessionLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;

  return {
    /** Usage and recent_message_count of sessions: one statement per batch. */
    sessionStats: new DataLoader<string, SessionStats>(async (ids) => {
      if (!tenant) return ids.map(() => EMPTY_STATS);
      const rows = await database().query<UsageRow & { session_id: string }>(usageSql(tenant), {
        bind: { ...tenant.bind, ids: [...ids] },
        type: QueryTypes.SELECT,
      });
      const byId = new Map(rows.map((row) => [row.session_id, toStats(row)]));
      return ids.map((id) => byId.get(id) ?? EMPTY_STATS);
    }),

    sessionProjectById: new DataLoader<string, RecordOf<ProjectModel> | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await database().query<RecordOf<ProjectModel>>(
        `SELECT p.* FROM projects p WHERE p.id = ANY($ids::uuid[]) AND ${tenant.where('p')}`,
        { bind: { ...tenant.bind, ids: [...ids] }, type: QueryTypes.SELECT },
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),

    sessionMessages: new DataLoader<MessagesKey, RecordOf<SessionMessageModel>[], string>(
      (keys) =>
        batchByShape(
          keys,
          (key) => `${key.include_compacted}:${key.limit}`,
          async (group) => {
            const out = new Map<MessagesKey, RecordOf<SessionMessageModel>[]>(group.map((key) => [key, []]));
            if (!tenant) return out;
            const rows = await database().query<RecordOf<SessionMessageModel>>(
              `SELECT m.* FROM unnest($ids::uuid[]) AS k(id)
                 CROSS JOIN LATERAL (
                   SELECT * FROM session_messages x
                    WHERE x.session_id = k.id ${group[0].include_compacted ? '' : 'AND x.compacted_at IS NULL'}
                    ORDER BY x.seq LIMIT $limit) m
                WHERE ${tenant.where('m', { workspace: false })}
                ORDER BY m.session_id, m.seq`,
              {
                bind: { ...tenant.bind, ids: group.map((key) => key.session_id), limit: group[0].limit },
                type: QueryTypes.SELECT,
              },
            );
            const byId = new Map(group.map((key) => [key.session_id, out.get(key)!]));
            for (const row of rows) byId.get(row.session_id)?.push(row);
            return out;
          },
          () => [],
        ),
      { cacheKeyFn: (key) => `${key.session_id}:${key.include_compacted}:${key.limit}` },
    ),

    /** Active, user-origin sessions of each workspace the viewer can see, newest first. */
    workspaceSessions: childSessionsLoader(tenant, 'workspace_id', (x) => `${x}.archived_at IS NULL AND ${x}.origin = 'user'`),

    /** Visible sessions of each group (any origin, any archive state), newest first. */
    groupSessions: childSessionsLoader(tenant, 'group_id', () => 'TRUE'),
  };
}

/** `condition` is a filter on the sessions alias it is given. */
function childSessionsLoader(tenant: TenantFilter | null, column: 'workspace_id' | 'group_id', condition: (alias: string) => string) {
  return new DataLoader<ChildSessionsKey, RecordOf<SessionModel>[], string>(
    (keys) =>
      batchByShape(
        keys,
        (key) => String(key.limit),
        async (group) => {
          const out = new Map<ChildSessionsKey, RecordOf<SessionModel>[]>(group.map((key) => [key, []]));
          if (!tenant) return out;
          const rows = await database().query<RecordOf<SessionModel>>(
            `SELECT s.* FROM unnest($ids::uuid[]) AS k(id)
               CROSS JOIN LATERAL (
                 SELECT * FROM sessions x
                  WHERE x.${column} = k.id AND ${condition('x')} AND ${visibleSql('x')}
                  ORDER BY x.updated_at DESC, x.id DESC LIMIT $limit) s
              WHERE ${tenant.where('s')}
              ORDER BY s.updated_at DESC, s.id DESC`,
            {
              bind: { ...tenant.bind, ids: group.map((key) => key.parent_id), limit: group[0].limit },
              type: QueryTypes.SELECT,
            },
          );
          const byParent = new Map(group.map((key) => [key.parent_id, out.get(key)!]));
          for (const row of rows) byParent.get(row[column] as string)?.push(row);
          return out;
        },
        () => [],
      ),
    { cacheKeyFn: (key) => `${key.parent_id}:${key.limit}` },
  );
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createSessionLoaders> {}
}

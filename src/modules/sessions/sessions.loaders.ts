import DataLoader from 'dataloader';
import type { ProjectModel, RecordOf, SessionMessageModel } from '../../../models';
import { plainQuery } from '../../db/hot';
import { rowsWithinReply, type ReplyRequest } from '../../core/reply-budget';
import type { LoaderDeps } from '../../core/module';
import { tenantFilter, type TenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { visibleSql } from './session.policy';
import { CHILD_SESSIONS, NEWEST } from './sessions.graphql-sql';
import { messageRows } from './sessions.sql';
import { lastGenerationSql, toStats, USAGE_AGGREGATE, type SessionStats } from './session-usage';

/** Usage of many sessions in one statement, bound to the viewer's tenant (none: every session's is empty). */
const usageSql = (tenant: TenantFilter | null) => `
  SELECT k.id AS session_id, agg.*, CASE WHEN agg.total_message_count > 0 THEN (${lastGenerationSql('k.id')}) END AS last_generation_input_tokens
    FROM unnest($ids::uuid[]) AS k(id)
    CROSS JOIN LATERAL (
      SELECT ${USAGE_AGGREGATE} FROM session_messages m WHERE m.session_id = k.id AND ${tenant?.where('m', { workspace: false }) ?? 'FALSE'}
    ) agg`;

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
export function createSessionLoaders(viewer: Viewer | null, _deps: LoaderDeps, request: ReplyRequest | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;

  return {
    /** Usage and recent_message_count of sessions: one statement per batch. */
    sessionStats: new DataLoader<string, SessionStats>(async (ids) => {
      const rows = await plainQuery<Record<string, unknown>>(usageSql(tenant), { ...tenant?.bind, ids: [...ids] });
      const byId = new Map(rows.map((row) => [row.session_id, toStats(row)]));
      return ids.map((id) => byId.get(id)!);
    }),

    sessionProjectById: new DataLoader<string, RecordOf<ProjectModel> | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<RecordOf<ProjectModel>>(`SELECT p.* FROM projects p WHERE p.id = ANY($ids::uuid[]) AND ${tenant.where('p')}`, {
        ...tenant.bind,
        ids: [...ids],
      });
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
            if (!tenant || !request) return out;
            // Every session's page in one statement, held to the request's reply budget as messagesAfter holds one page.
            const rows = await rowsWithinReply<RecordOf<SessionMessageModel>>(request, {
              rows: messageRows(
                `FROM unnest($ids::uuid[]) AS k(id)
                 CROSS JOIN LATERAL (
                   SELECT * FROM session_messages x
                    WHERE x.session_id = k.id ${group[0].include_compacted ? '' : 'AND x.compacted_at IS NULL'}
                    ORDER BY x.seq LIMIT $limit) m
                WHERE ${tenant.where('m', { workspace: false })}`,
              ),
              order: ['session_id', 'seq'],
              bind: { ...tenant.bind, ids: group.map((key) => key.session_id), limit: group[0].limit },
            });
            const byId = new Map(group.map((key) => [key.session_id, out.get(key)!]));
            for (const row of rows) byId.get(row.session_id)?.push(row);
            return out;
          },
          () => [],
        ),
      { cacheKeyFn: (key) => `${key.session_id}:${key.include_compacted}:${key.limit}` },
    ),

    /** Active, user-origin sessions of each workspace the viewer can see, newest first. */
    workspaceSessions: childSessionsLoader(tenant, CHILD_SESSIONS.workspace),

    /** Visible sessions of each group (any origin, any archive state), newest first. */
    groupSessions: childSessionsLoader(tenant, CHILD_SESSIONS.group),
  };
}

/** A session row as `to_json(s) AS "s"` (sessionOfRow reads it). */
type SessionRow = Record<string, unknown>;

/**
 * The newest visible sessions of each parent (workspace or group).
 * `condition` is a filter on the sessions alias it is given.
 */
function childSessionsLoader(tenant: TenantFilter | null, { column, condition }: (typeof CHILD_SESSIONS)[keyof typeof CHILD_SESSIONS]) {
  return new DataLoader<ChildSessionsKey, SessionRow[], string>(
    (keys) =>
      batchByShape(
        keys,
        (key) => `${key.limit}`,
        async (group) => {
          const out = new Map<ChildSessionsKey, SessionRow[]>(group.map((key) => [key, []]));
          if (!tenant) return out;
          const rows = await plainQuery<SessionRow>(
            `SELECT to_json(s) AS "s" FROM unnest($ids::uuid[]) AS k(id)
               CROSS JOIN LATERAL (
                 SELECT * FROM sessions x
                  WHERE x.${column} = k.id AND ${condition('x')} AND ${visibleSql('x')}
                  ORDER BY ${NEWEST('x')} LIMIT $limit) s
              WHERE ${tenant.where('s')}
              ORDER BY ${NEWEST('s')}`,
            { ...tenant.bind, ids: group.map((key) => key.parent_id), limit: group[0].limit },
            // Its columns are JSON values, whatever columns sessions gains (plainQuery `prepare`).
            { prepare: true },
          );
          const byParent = new Map(group.map((key) => [key.parent_id, out.get(key)!]));
          for (const row of rows) byParent.get((row.s as Record<string, unknown>)[column] as string)?.push(row);
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

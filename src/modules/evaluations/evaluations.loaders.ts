import DataLoader from 'dataloader';
import type { RecordOf, SessionGroupModel } from '../../../models';
import { childrenLoader } from '../../core/loaders/children-loader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';
import type { TaskSetRow } from '../catalogs/catalogs.mapper';
import type { TaskSummary } from '../catalogs/catalogs.types';
import { tasksReadBy } from '../catalogs/task-verification.policy';
import { TASK_SET_LIST_SELECT } from '../catalogs/task-sets.service';
import { taskSelect } from '../catalogs/tasks.service';
import { listedJobSql, type EvaluationItemRow, type EvaluationRow } from './evaluations.mapper';

/**
 * GraphQL navigation for dashboards, one statement per batch whatever the
 * number of parents, bound to the viewer's tenant when created:
 * project → evaluations (newest first), evaluation → items (in order),
 * evaluation → task set, item → task, item → session groups.
 */
export function createEvaluationLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;

  /** The first `limit` children of each parent, in `order`; `listed` reshapes each whole row as a list shows it. */
  function children<T extends Record<string, unknown>>(table: string, column: string, order: string, listed?: (row: string) => string) {
    const bound = tenant;
    if (!bound) return childrenLoader<T>(column, null);
    const page = (select: string) => `(SELECT ${select} FROM ${table} x WHERE x.${column} = k.id AND ${bound.where('x')} ORDER BY ${order} LIMIT $limit)`;
    const sql = listed
      ? `SELECT c.* FROM unnest($ids::uuid[]) AS k(id) CROSS JOIN LATERAL ${page('x')} l CROSS JOIN LATERAL ${listed('l.x')} c`
      : `SELECT c.* FROM unnest($ids::uuid[]) AS k(id) CROSS JOIN LATERAL ${page('*')} c`;
    return childrenLoader<T>(column, (ids, limit) => plainQuery<T>(sql, { ...bound.bind, ids, limit }));
  }

  function byId<T extends { id: string }>(sql: (where: string) => string) {
    return new DataLoader<string, T | null>(async (ids) => {
      if (!tenant) return ids.map(() => null);
      const rows = await plainQuery<T>(sql(`(a.is_public OR ${tenant.where('a', { workspace: false })})`), { ...tenant.bind, ids: [...ids] });
      const found = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    });
  }

  return {
    projectEvaluations: children<EvaluationRow & Record<string, unknown>>('evaluations', 'project_id', 'x.created_at DESC, x.id DESC', listedJobSql),
    evaluationItemRows: children<EvaluationItemRow & Record<string, unknown>>('evaluation_items', 'evaluation_id', 'x.position'),
    itemSessionGroups: children<RecordOf<SessionGroupModel> & Record<string, unknown>>('session_groups', 'evaluation_item_id', 'x.created_at DESC, x.id DESC'),
    /** Key: `<reader organization id> <task id>`: the item's task as the item's organization reads it. */
    evaluationTask: new DataLoader<string, TaskSummary | null>(async (keys) => {
      if (!tenant) return keys.map(() => null);
      const parts = keys.map((key) => key.split(' '));
      const rows = await plainQuery<TaskSummary & { ord: string }>(
        `SELECT k.ord, t.* FROM unnest($k_reader::uuid[], $k_id::uuid[]) WITH ORDINALITY k(reader, id, ord)
           CROSS JOIN LATERAL (
             SELECT ${taskSelect()} FROM ${tasksReadBy('k.reader')} a
              WHERE a.id = k.id AND (a.is_public OR ${tenant.where('a', { workspace: false })})) t`,
        { ...tenant.bind, k_reader: parts.map((part) => part[0]), k_id: parts.map((part) => part[1]) },
      );
      const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
      return keys.map((_key, index) => byOrd.get(index + 1) ?? null);
    }),
    evaluationTaskSet: byId<TaskSetRow>(
      (visible) => `SELECT ${TASK_SET_LIST_SELECT} FROM task_sets a JOIN organizations o ON o.id = a.organization_id WHERE a.id = ANY($ids::uuid[]) AND ${visible}`,
    ),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createEvaluationLoaders> {}
}

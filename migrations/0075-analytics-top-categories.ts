import type { Migration } from './types';

/**
 * An assessment's analytics snapshot keeps, by category and by goal
 * category, the 100 values with the most attacks (ties by value;
 * assessments.sql.ts RECOMPUTE_SQL, core/pagination.ts TOP_VALUES): one
 * attack per distinct category made a snapshot of megabytes, read whole
 * with every assessment of a list. Snapshots written before are cut the
 * same way here (a later ingest recomputes them from the attacks anyway);
 * a dimension that is no object of over 100 entries is left as it is.
 */
const wide = (snapshot: string, dimension: string) =>
  `(jsonb_typeof(${snapshot} -> '${dimension}') = 'object' AND (SELECT count(*) FROM jsonb_object_keys(${snapshot} -> '${dimension}')) > 100)`;

const top = (snapshot: string, dimension: string) => `coalesce((
  SELECT jsonb_object_agg(e.key, e.value) FROM (
    SELECT key, value FROM jsonb_each(${snapshot} -> '${dimension}')
     ORDER BY CASE WHEN jsonb_typeof(value -> 'attacks') = 'number' THEN (value ->> 'attacks')::numeric END DESC NULLS LAST, key COLLATE "C" LIMIT 100) e), '{}'::jsonb)`;

const cut = (snapshot: string, dimension: string) =>
  `CASE WHEN ${wide(snapshot, dimension)} THEN jsonb_set(${snapshot}, '{${dimension}}', ${top(snapshot, dimension)}) ELSE ${snapshot} END`;

export const CUT_SQL = `
  UPDATE airt_assessments a
     SET analytics_snapshot = ${cut(cut('a.analytics_snapshot', 'by_category'), 'by_goal_category')}
   WHERE ${wide('a.analytics_snapshot', 'by_category')} OR ${wide('a.analytics_snapshot', 'by_goal_category')}`;

export const up: Migration = async ({ context: sql }) => {
  await sql.query(CUT_SQL);
};

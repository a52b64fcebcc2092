import type { Migration } from './types';

/**
 * An assessment's analytics snapshot keeps, by category and by goal
 * category, the 100 values with the most attacks (ties by value;
 * assessments.sql.ts RECOMPUTE_SQL, core/pagination.ts TOP_VALUES): one
 * attack per distinct category made a snapshot of megabytes, read whole
 * with every assessment of a list. Snapshots written before are cut the
 * same way here (a later ingest recomputes them from the attacks anyway).
 */
const topOf = (dimension: string) => `coalesce((
  SELECT jsonb_object_agg(e.key, e.value) FROM (
    SELECT key, value FROM jsonb_each(a.analytics_snapshot -> '${dimension}')
     ORDER BY (value ->> 'attacks')::bigint DESC, key COLLATE "C" LIMIT 100) e), '{}'::jsonb)`;

const wide = (dimension: string) =>
  `(jsonb_typeof(a.analytics_snapshot -> '${dimension}') = 'object' AND (SELECT count(*) FROM jsonb_object_keys(a.analytics_snapshot -> '${dimension}')) > 100)`;

export const CUT_SQL = `
  UPDATE airt_assessments a
     SET analytics_snapshot = a.analytics_snapshot || jsonb_build_object('by_category', ${topOf('by_category')}, 'by_goal_category', ${topOf('by_goal_category')})
   WHERE ${wide('by_category')} OR ${wide('by_goal_category')}`;

export const up: Migration = async ({ context: sql }) => {
  await sql.query(CUT_SQL);
};

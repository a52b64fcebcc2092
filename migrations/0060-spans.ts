import type { Migration } from './types';

/**
 * Spans received over OTLP (decisions §15), partitioned by day of
 * `start_time`: the service creates each day's partition ahead and drops
 * whole days past TRACE_RETENTION_DAYS (src/modules/traces/span-partitions.ts),
 * so retention never runs a DELETE. A span is keyed by its organization,
 * trace and span ids (and `start_time`, which a partitioned table's keys must
 * hold; a retried export repeats it), so a retry never stores it twice.
 *
 * Attack rows derived from `study` spans go to airt_attack_spans beside the
 * attack ingest's, marked by `trace_span_id` (unique per assessment).
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE spans (
      organization_id uuid NOT NULL,
      workspace_id uuid NOT NULL,
      project_id uuid NOT NULL,
      -- The project came from another span of the trace or the default: a later span naming one moves it.
      project_inferred boolean NOT NULL DEFAULT false,
      trace_id text NOT NULL,
      span_id text NOT NULL,
      parent_span_id text,
      name text NOT NULL,
      span_type text,
      kind smallint NOT NULL DEFAULT 0,
      start_time timestamptz NOT NULL,
      end_time timestamptz NOT NULL,
      duration_ms double precision NOT NULL,
      status_code smallint NOT NULL DEFAULT 0,
      status_message text,
      attributes jsonb NOT NULL DEFAULT '{}',
      resource jsonb NOT NULL DEFAULT '{}',
      events jsonb NOT NULL DEFAULT '[]',
      run_id text,
      evaluation_id uuid,
      evaluation_item_id uuid,
      session_id uuid,
      assessment_id uuid,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, trace_id, span_id, start_time)
    ) PARTITION BY RANGE (start_time);

    -- The trace list: a workspace's root spans, newest first.
    CREATE INDEX spans_roots_idx ON spans (workspace_id, start_time DESC) WHERE parent_span_id IS NULL;
    -- A trace's spans and the children of a span (trials of a study).
    CREATE INDEX spans_parent_idx ON spans (organization_id, trace_id, parent_span_id);
    CREATE INDEX spans_evaluation_idx ON spans (evaluation_id, start_time) WHERE evaluation_id IS NOT NULL;
    CREATE INDEX spans_assessment_idx ON spans (assessment_id) WHERE assessment_id IS NOT NULL;
    -- Children placed before their root arrived (few, and only until it does).
    CREATE INDEX spans_inferred_idx ON spans (organization_id, trace_id) WHERE project_inferred;

    ALTER TABLE airt_attack_spans ADD COLUMN from_trace boolean NOT NULL DEFAULT false;
    CREATE UNIQUE INDEX airt_attack_spans_from_trace ON airt_attack_spans (assessment_id, trace_id, span_id) WHERE from_trace;
  `);
};

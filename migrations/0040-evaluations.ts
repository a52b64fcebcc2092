import type { Migration } from './types';

/**
 * Evaluations: one job row per evaluation and one row per item.
 *
 * - The twelve per-state counters of a job (`item_counts`) are columns of its
 *   row, changed in the same transaction as every item write, under the job
 *   row's lock (every write to a job locks the job row first, then items), so
 *   they always equal a recount and concurrent workers never deadlock.
 * - `evaluation_items.task_id` references the task version an item runs:
 *   the foreign key (NO ACTION: a foreign_key_violation) keeps a referenced task version from being deleted
 *   (decisions 13: 409), whoever deletes it.
 * - `organization_id`/`workspace_id` are copied onto items so loaders can
 *   apply the tenant filter without a join.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE evaluations (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id),
      name text NOT NULL,
      kind text NOT NULL,
      model text,
      agent_type text,
      capability text,
      engine text,
      sandbox_provider text,
      run_id text,
      error_summary text,
      cleanup_policy text NOT NULL,
      job_status text NOT NULL DEFAULT 'queued',
      runtime_id uuid,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_by_email text,
      queued_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      completed_at timestamptz,
      cancel_requested_at timestamptz,
      dataset_ref jsonb,
      config_json jsonb,
      summary_json jsonb,
      dataset_size integer NOT NULL,
      requested_concurrency integer NOT NULL,
      effective_concurrency integer NOT NULL,
      task_timeout_sec integer,
      analytics jsonb,
      skipped_members jsonb NOT NULL DEFAULT '[]'::jsonb,
      task_set_ref jsonb,
      task_set_id uuid,
      retry_rounds integer NOT NULL DEFAULT 0,
      queued integer NOT NULL DEFAULT 0,
      claiming integer NOT NULL DEFAULT 0,
      provisioning integer NOT NULL DEFAULT 0,
      agent_running integer NOT NULL DEFAULT 0,
      agent_finished integer NOT NULL DEFAULT 0,
      verifying integer NOT NULL DEFAULT 0,
      passed integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      errored integer NOT NULL DEFAULT 0,
      infra_error integer NOT NULL DEFAULT 0,
      timed_out integer NOT NULL DEFAULT 0,
      cancelled integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX evaluations_workspace_idx ON evaluations (workspace_id, created_at DESC, id DESC);
    CREATE INDEX evaluations_project_idx ON evaluations (project_id, created_at DESC, id DESC);

    CREATE TABLE evaluation_items (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      evaluation_id uuid NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL,
      workspace_id uuid NOT NULL,
      position integer NOT NULL,
      task_id uuid REFERENCES tasks(id),
      task_name text NOT NULL,
      task_version text,
      dataset_row jsonb,
      status text NOT NULL DEFAULT 'queued',
      attempt integer NOT NULL DEFAULT 1,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      completed_at timestamptz
    );
    CREATE UNIQUE INDEX evaluation_items_position_idx ON evaluation_items (evaluation_id, position);
    CREATE INDEX evaluation_items_task_idx ON evaluation_items (task_id) WHERE task_id IS NOT NULL;
    CREATE INDEX session_groups_evaluation_item_idx ON session_groups (evaluation_item_id) WHERE evaluation_item_id IS NOT NULL;
  `);
};

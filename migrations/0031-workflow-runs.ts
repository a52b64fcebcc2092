import type { Migration } from './types';

/**
 * Workflow runs of a project. Status moves are conditional updates
 * (`… WHERE status = 'pending'`), so a start and a cancel racing on one
 * pending run cannot both win.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE workflow_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id),
      definition_id uuid NOT NULL,
      runtime_id uuid,
      session_group_id uuid REFERENCES session_groups(id) ON DELETE SET NULL,
      host_kind text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
      title text,
      error text,
      last_fact_seq integer NOT NULL DEFAULT 0,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      started_at timestamptz,
      finished_at timestamptz,
      run_heartbeat_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX workflow_runs_project_created ON workflow_runs (project_id, created_at DESC, id DESC);
    CREATE INDEX workflow_runs_workspace_created ON workflow_runs (workspace_id, created_at DESC, id DESC);
    CREATE INDEX workflow_runs_session_group ON workflow_runs (session_group_id) WHERE session_group_id IS NOT NULL;
  `);
};

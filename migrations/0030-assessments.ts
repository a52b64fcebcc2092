import type { Migration } from './types';

/**
 * Red-team assessments and their attack spans. The assessment row carries the
 * analytics (overall_asr, risk_score, analytics_snapshot, totals) recomputed
 * by PostgreSQL from the spans in every ingest transaction; `attack_seq` is
 * the last span's ingest position (spans keep ingest order by (assessment_id, seq)).
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE airt_assessments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      session_id uuid REFERENCES sessions(id) ON DELETE SET NULL,
      name text NOT NULL,
      description text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
      runtime_id uuid,
      sandbox_id uuid,
      attack_manifest jsonb,
      attacker_config jsonb,
      target_config jsonb,
      attacker_model text,
      judge_model text,
      target_model text,
      workflow_run_id text,
      workflow_script text,
      sandbox_detail jsonb,
      overall_asr double precision,
      risk_score double precision,
      analytics_snapshot jsonb,
      total_attacks integer NOT NULL DEFAULT 0,
      total_trials bigint NOT NULL DEFAULT 0,
      attack_seq integer NOT NULL DEFAULT 0,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX airt_assessments_workspace_created ON airt_assessments (workspace_id, created_at DESC, id DESC);
    CREATE INDEX airt_assessments_project_created ON airt_assessments (project_id, created_at DESC, id DESC);
    CREATE INDEX airt_assessments_session ON airt_assessments (session_id) WHERE session_id IS NOT NULL;

    CREATE TABLE airt_attack_spans (
      assessment_id uuid NOT NULL REFERENCES airt_assessments(id) ON DELETE CASCADE,
      seq integer NOT NULL,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL,
      attack_name text NOT NULL,
      goal text NOT NULL,
      goal_category text NOT NULL,
      asr double precision NOT NULL DEFAULT 0 CHECK (asr BETWEEN 0 AND 1),
      attacker_model text NOT NULL DEFAULT '',
      target_model text NOT NULL DEFAULT '',
      evaluator_model text NOT NULL DEFAULT '',
      best_candidate text NOT NULL DEFAULT '',
      best_candidate_parts jsonb,
      best_response text NOT NULL DEFAULT '',
      best_response_parts jsonb,
      best_modality_scores jsonb,
      best_score double precision NOT NULL DEFAULT 0,
      category text NOT NULL DEFAULT '',
      sub_category text NOT NULL DEFAULT '',
      execution_time_s double precision NOT NULL DEFAULT 0 CHECK (execution_time_s >= 0),
      finished_trials integer NOT NULL DEFAULT 0 CHECK (finished_trials >= 0),
      total_trials integer NOT NULL DEFAULT 0 CHECK (total_trials >= 0),
      is_jailbreak boolean NOT NULL DEFAULT false,
      span_id text NOT NULL DEFAULT '',
      trace_id text NOT NULL DEFAULT '',
      transforms jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (assessment_id, seq)
    );
  `);
};

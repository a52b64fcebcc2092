import type { Migration } from './types';

/** Reports of a red-team assessment (decisions §14): free-form type, markdown content and structured content. */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE airt_reports (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      assessment_id uuid NOT NULL REFERENCES airt_assessments(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL,
      report_type text NOT NULL,
      content text,
      content_json jsonb,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX airt_reports_assessment_created ON airt_reports (assessment_id, created_at DESC, id DESC);
    -- Findings of a project: its assessments' attacks.
    CREATE INDEX airt_attack_spans_assessment_score ON airt_attack_spans (assessment_id, best_score DESC);
  `);
};

import type { Migration } from './types';

/**
 * Sessions, their transcript messages and session groups. Usage is never
 * stored on the session: it is summed from the messages at read time.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE session_groups (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id),
      kind text NOT NULL CHECK (kind IN ('worker_run', 'evaluation_item', 'workflow', 'workflow_run')),
      status text CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
      title text,
      worker text,
      capability text,
      capability_version text,
      evaluation_id uuid,
      evaluation_item_id uuid,
      evaluation_item_attempt_id uuid,
      runtime_id uuid,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      project_id uuid REFERENCES projects(id),
      group_id uuid REFERENCES session_groups(id) ON DELETE SET NULL,
      agent text,
      model text NOT NULL,
      title text,
      origin text NOT NULL DEFAULT 'user',
      visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'workspace')),
      runtime_id uuid,
      labels jsonb NOT NULL DEFAULT '{}'::jsonb,
      message_count integer NOT NULL DEFAULT 0,
      recent_message_count integer,
      preview_text text,
      last_message_at timestamptz,
      last_seq integer NOT NULL DEFAULT 0,
      context jsonb,
      archived_at timestamptz,
      frozen_at timestamptz,
      frozen_by text CHECK (frozen_by IN ('evaluation', 'user')),
      shared_at timestamptz,
      shared_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE session_messages (
      session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq integer NOT NULL,
      organization_id uuid NOT NULL,
      id text NOT NULL,
      role text NOT NULL,
      content jsonb,
      tool_calls jsonb,
      tool_call_id text,
      metadata jsonb,
      has_usage boolean NOT NULL DEFAULT false,
      input_tokens bigint,
      output_tokens bigint,
      cache_creation_input_tokens bigint,
      cache_read_input_tokens bigint,
      cost_usd double precision,
      tool_call_count integer NOT NULL DEFAULT 0,
      is_summary boolean NOT NULL DEFAULT false,
      compacted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (session_id, seq),
      UNIQUE (session_id, id)
    );
  `);
};

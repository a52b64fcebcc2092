import type { Migration } from './types';

/**
 * Catalogs: datasets, capabilities and tasks (one row per published version)
 * and task sets (one row per name).
 *
 * - `version_key` is the semver precedence as a byte-sortable string
 *   (src/modules/catalogs/semver-key.ts), compared under the "C" collation so
 *   `ORDER BY version_key DESC` is semver order, prereleases below their release.
 * - `is_latest` marks the highest version of each (organization, name); it is
 *   recomputed in the publishing or deleting transaction under an advisory lock
 *   on the name, so lists and facets read one row per name from a partial index.
 * - The unique (organization_id, name, version) constraint decides concurrent
 *   publishing of one version: the loser gets 409, never a 500.
 * - `is_public` is a property of the name: every version of a name carries the
 *   same value (publishing with `is_public` or PATCH …/visibility sets them all).
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE datasets (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      version text NOT NULL,
      version_key text COLLATE "C" NOT NULL,
      is_latest boolean NOT NULL DEFAULT false,
      is_public boolean NOT NULL DEFAULT false,
      format text NOT NULL DEFAULT 'parquet',
      pretty_name text,
      summary text,
      license text,
      size_category text,
      language text[],
      tags text[],
      task_categories text[],
      column_count integer,
      row_count bigint,
      file_size_bytes bigint,
      download_count integer NOT NULL DEFAULT 0,
      origin jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT datasets_version_unique UNIQUE (organization_id, name, version)
    );
    CREATE INDEX datasets_versions_idx ON datasets (organization_id, name, version_key DESC);
    CREATE INDEX datasets_latest_idx ON datasets (organization_id, created_at DESC, id DESC) WHERE is_latest;
    CREATE INDEX datasets_public_latest_idx ON datasets (created_at DESC, id DESC) WHERE is_latest AND is_public;

    CREATE TABLE capabilities (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      version text NOT NULL,
      version_key text COLLATE "C" NOT NULL,
      is_latest boolean NOT NULL DEFAULT false,
      is_public boolean NOT NULL DEFAULT false,
      description text,
      author_name text,
      license text,
      keywords text[] NOT NULL DEFAULT '{}',
      origin jsonb NOT NULL DEFAULT '{}'::jsonb,
      manifest jsonb NOT NULL,
      component_details jsonb NOT NULL DEFAULT '[]'::jsonb,
      component_counts jsonb NOT NULL DEFAULT '{}'::jsonb,
      secrets jsonb NOT NULL DEFAULT '[]'::jsonb,
      file_manifest jsonb NOT NULL DEFAULT '[]'::jsonb,
      artifact_sha256 text NOT NULL,
      runtime_digest text NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT capabilities_version_unique UNIQUE (organization_id, name, version)
    );
    CREATE INDEX capabilities_versions_idx ON capabilities (organization_id, name, version_key DESC);
    CREATE INDEX capabilities_latest_idx ON capabilities (organization_id, created_at DESC, id DESC) WHERE is_latest;
    CREATE INDEX capabilities_public_latest_idx ON capabilities (created_at DESC, id DESC) WHERE is_latest AND is_public;

    -- The published files of a capability version (the readme route reads README.md from here).
    CREATE TABLE capability_files (
      capability_id uuid NOT NULL REFERENCES capabilities(id) ON DELETE CASCADE,
      path text NOT NULL,
      sha256 text NOT NULL,
      size_bytes integer NOT NULL,
      content bytea NOT NULL,
      PRIMARY KEY (capability_id, path)
    );

    CREATE TABLE tasks (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      version text NOT NULL,
      version_key text COLLATE "C" NOT NULL,
      is_latest boolean NOT NULL DEFAULT false,
      is_public boolean NOT NULL DEFAULT false,
      description text,
      author text,
      difficulty text,
      license text,
      oci_digest text,
      source text,
      tags text[],
      ports jsonb,
      verification jsonb,
      file_size bigint NOT NULL DEFAULT 0,
      template_status text NOT NULL DEFAULT 'pending',
      sandbox_provider text NOT NULL,
      readme text,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT tasks_version_unique UNIQUE (organization_id, name, version),
      CONSTRAINT tasks_template_status_check CHECK (template_status IN ('pending', 'building', 'ready', 'failed'))
    );
    CREATE INDEX tasks_versions_idx ON tasks (organization_id, name, version_key DESC);
    CREATE INDEX tasks_latest_idx ON tasks (organization_id, created_at DESC, id DESC)
      INCLUDE (name, author, difficulty, source, tags, file_size, is_public) WHERE is_latest;
    CREATE INDEX tasks_public_latest_idx ON tasks (created_at DESC, id DESC)
      INCLUDE (organization_id, name, author, difficulty, source, tags, file_size) WHERE is_latest AND is_public;
    CREATE INDEX tasks_public_name_idx ON tasks (name, version_key DESC) WHERE is_public;

    CREATE TABLE task_sets (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      members text[] NOT NULL DEFAULT '{}',
      is_public boolean NOT NULL DEFAULT false,
      source text,
      tags text[],
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT task_sets_name_unique UNIQUE (organization_id, name)
    );
    CREATE INDEX task_sets_public_idx ON task_sets (created_at DESC, id DESC) WHERE is_public;
  `);
};

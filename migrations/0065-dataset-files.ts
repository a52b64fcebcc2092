import type { Migration } from './types';

/**
 * Dataset downloads and activity (decisions §14).
 *
 * - `dataset_files`: the files published with a dataset version (as
 *   `capability_files` for capabilities), each with an optional `split`
 *   (`train`, `test`, …) and its sha256 and size computed by the server. The
 *   primary key (dataset_id, path) is also the archive's read order.
 * - `dataset_activity`: one row per publish, download or delete, kept by the
 *   organization of the route it happened on (`organization_id`: a download
 *   of another organization's public dataset belongs to the downloader's
 *   organization). The dataset is named by `dataset_owner`/`dataset_name`/
 *   `version` as it was, so a row outlives the version (`dataset_id` becomes
 *   null) and its user (`user_id` becomes null). The list reads the index
 *   (organization_id, created_at DESC, id DESC) newest first.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`
    CREATE TABLE dataset_files (
      dataset_id uuid NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
      path text NOT NULL,
      split text,
      content bytea NOT NULL,
      sha256 text NOT NULL,
      size_bytes integer NOT NULL,
      PRIMARY KEY (dataset_id, path)
    );

    CREATE TABLE dataset_activity (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      dataset_id uuid REFERENCES datasets(id) ON DELETE SET NULL,
      dataset_owner text NOT NULL,
      dataset_name text NOT NULL,
      version text NOT NULL,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      action text NOT NULL CHECK (action IN ('publish', 'download', 'delete')),
      format text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX dataset_activity_org_idx ON dataset_activity (organization_id, created_at DESC, id DESC);
  `);
};

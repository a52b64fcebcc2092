import { fromRow } from '../../core/graphql-sql/sql-fields';
import {
  TaskSetResponse,
  type CapabilityArtifactSummary,
  type CapabilityComponentDetail,
  type CapabilityFileEntry,
  type CapabilitySecretRequirement,
} from './catalogs.types';

/** The rows catalogs read, and their replies (their fields' declarations, @Sql in catalogs.types.ts) with the keys navigation reads. */

export interface CapabilityRow {
  id: string;
  organization_id: string;
  org_key: string;
  name: string;
  version: string;
  created_at: Date;
  updated_at: Date;
  description: string | null;
  author_name: string | null;
  license: string | null;
  is_public: boolean;
  keywords: string[] | null;
  origin: Record<string, unknown> | null;
  component_counts: Record<string, number> | null;
  component_details: CapabilityComponentDetail[] | null;
  secrets: CapabilitySecretRequirement[] | null;
  version_count: string | number;
  versions: string[];
  artifact_sha256?: string;
  runtime_digest?: string;
  manifest?: Record<string, unknown>;
  file_manifest?: CapabilityFileEntry[];
}

/**
 * Row → reply (`Type`: the summary or the detail), as its fields declare
 * them; `viewerOrgId` is the route's organization: another organization's
 * capability is named `<owner>/<name>`. With the keys navigation reads.
 */
export function toCapability<T extends CapabilityArtifactSummary>(Type: new () => T, row: CapabilityRow, viewerOrgId: string): T {
  return Object.assign(fromRow(Type, { ...row, viewer_org_id: viewerOrgId }), { organization_id: row.organization_id, local_name: row.name });
}

export interface TaskSetRow {
  id: string;
  organization_id: string;
  org_key: string;
  name: string;
  description: string | null;
  members: string[];
  /** On a list's rows (TASK_SET_LIST_SELECT), where members holds the first EMBEDDED_LIST_CAP. */
  member_count?: number;
  is_public: boolean;
  source: string | null;
  tags: string[] | null;
  created_at: Date;
  updated_at: Date;
}

/** Row → reply, as its fields declare them; `readerOrgId`: the organization the reply is built for, kept for the set's `tasks` (task-verification.policy). */
export function toTaskSet(row: TaskSetRow, readerOrgId: string): TaskSetResponse {
  return Object.assign(fromRow(TaskSetResponse, row), { organization_id: row.organization_id, reader_org_id: readerOrgId });
}

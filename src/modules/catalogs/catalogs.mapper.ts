import type {
  CapabilityArtifactDetail,
  CapabilityArtifactSummary,
  CapabilityComponentDetail,
  CapabilityFileEntry,
  CapabilitySecretRequirement,
  TaskSetResponse,
} from './catalogs.types';

/** Rows → GraphQL types, the only place. Rows are plain SQL rows (bigint columns arrive as strings). */


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

/** `viewerOrgId`: the route's organization; another organization's capability is named `<owner>/<name>`. */
export function toCapability(row: CapabilityRow, viewerOrgId: string): CapabilityArtifactSummary {
  return {
    id: row.id,
    name: row.organization_id === viewerOrgId ? row.name : `${row.org_key}/${row.name}`,
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
    description: row.description,
    author_name: row.author_name,
    license: row.license,
    is_public: row.is_public,
    keywords: row.keywords ?? [],
    origin: row.origin ?? {},
    component_counts: row.component_counts ?? {},
    component_details: (row.component_details ?? []).map((component) => ({
      name: component.name,
      path: component.path,
      type: component.type,
      description: component.description ?? null,
      metadata: component.metadata ?? null,
    })),
    secrets: (row.secrets ?? []).map((secret) => ({ name: secret.name, required: secret.required ?? true })),
    version_count: Number(row.version_count ?? 1),
    versions: row.versions ?? [row.version],
    organization_id: row.organization_id,
    local_name: row.name,
  };
}

export function toCapabilityDetail(row: CapabilityRow, viewerOrgId: string): CapabilityArtifactDetail {
  return {
    ...toCapability(row, viewerOrgId),
    artifact_sha256: row.artifact_sha256!,
    runtime_digest: row.runtime_digest!,
    manifest: row.manifest ?? {},
    file_manifest: row.file_manifest ?? [],
  };
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

/** `readerOrgId`: the organization the reply is built for, kept for the set's `tasks` (task-verification.policy). */
export function toTaskSet(row: TaskSetRow, readerOrgId: string): TaskSetResponse {
  return {
    id: row.id,
    name: row.name,
    org_key: row.org_key,
    description: row.description,
    members: row.members ?? [],
    member_count: row.member_count ?? row.members?.length ?? 0,
    is_public: row.is_public,
    source: row.source,
    tags: row.tags,
    created_at: row.created_at,
    updated_at: row.updated_at,
    organization_id: row.organization_id,
    reader_org_id: readerOrgId,
  };
}

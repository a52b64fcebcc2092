import { compactJson, jsonOr, jsonTimestamp } from '../../db/json-sql';
import { showsVerificationSecrets, verificationSecretsSql } from './task-verification.policy';
import type {
  CapabilityArtifactDetail,
  CapabilityArtifactSummary,
  CapabilityComponentDetail,
  CapabilityFileEntry,
  CapabilitySecretRequirement,
  TaskSetResponse,
  TaskSummary,
  TaskTemplateStatus,
  VerificationConfig,
} from './catalogs.types';

/** Rows → GraphQL types, the only place. Rows are plain SQL rows (bigint columns arrive as strings). */

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

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

export interface TaskRow {
  id: string;
  organization_id: string;
  org_key: string;
  name: string;
  version: string;
  created_at: Date;
  file_size: string | number;
  is_public: boolean;
  template_status: string;
  sandbox_provider: string;
  description: string | null;
  author: string | null;
  difficulty: string | null;
  license: string | null;
  oci_digest: string | null;
  source: string | null;
  tags: string[] | null;
  ports: Record<string, number[]> | null;
  verification: Record<string, unknown> | null;
  version_count: string | number | null;
}

/** `secrets`: whether the reply may carry `value` and `script` (task-verification.policy.ts decides). */
function toVerification(stored: Record<string, unknown> | null, secrets: boolean): VerificationConfig | null {
  if (!stored) return null;
  const judge = stored.judge as Record<string, unknown> | null | undefined;
  return {
    method: (stored.method ?? null) as VerificationConfig['method'],
    hash: (stored.hash ?? null) as string | null,
    path: (stored.path ?? null) as string | null,
    script: secrets ? ((stored.script ?? null) as string | null) : null,
    value: secrets ? ((stored.value ?? null) as string | null) : null,
    timeout: (stored.timeout ?? 30) as number,
    where: (stored.where ?? 'environment') as VerificationConfig['where'],
    judge: judge
      ? {
          kind: (judge.kind ?? 'trajectory') as never,
          max_steps: (judge.max_steps ?? 50) as number,
          model: judge.model as string,
          model_params: (judge.model_params ?? {}) as Record<string, unknown>,
          rubric: (judge.rubric ?? null) as string | null,
          system_prompt: (judge.system_prompt ?? null) as string | null,
          task_context: (judge.task_context ?? {}) as Record<string, unknown>,
        }
      : null,
  };
}

/**
 * `readerOrgId`: the organization the reply is built for (the route's, or
 * that of the set or evaluation embedding the task); outside the task's own
 * organization `verification.value` and `.script` are null.
 */
export function toTask(row: TaskRow, readerOrgId: string | null): TaskSummary {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    org_key: row.org_key,
    organization_id: row.organization_id,
    created_at: row.created_at,
    file_size: Number(row.file_size ?? 0),
    is_public: row.is_public,
    template_status: row.template_status as TaskTemplateStatus,
    sandbox_provider: row.sandbox_provider,
    description: row.description,
    author: row.author,
    difficulty: row.difficulty,
    license: row.license,
    oci_digest: row.oci_digest,
    source: row.source,
    tags: row.tags,
    ports: row.ports,
    verification: toVerification(row.verification, showsVerificationSecrets(row.organization_id, readerOrgId)),
    version_count: num(row.version_count),
  };
}

/** toVerification in SQL, over a jsonb column; `secrets` is the SQL boolean of the same policy. */
function verificationJson(v: string, secrets: string): string {
  const judge = `${v}->'judge'`;
  const secret = (key: string) => `CASE WHEN ${secrets} THEN ${v}->'${key}' END`;
  return `CASE WHEN jsonb_typeof(${v}) = 'object' THEN json_build_object(
      'method', ${v}->'method', 'hash', ${v}->'hash', 'path', ${v}->'path', 'script', ${secret('script')}, 'value', ${secret('value')},
      'timeout', ${jsonOr(`${v}->'timeout'`, '30')}, 'where', ${jsonOr(`${v}->'where'`, '"environment"')},
      'judge', CASE WHEN jsonb_typeof(${judge}) = 'object' THEN json_build_object(
        'kind', ${jsonOr(`${judge}->'kind'`, '"trajectory"')}, 'max_steps', ${jsonOr(`${judge}->'max_steps'`, '50')},
        'model', ${judge}->'model', 'model_params', ${jsonOr(`${judge}->'model_params'`, '{}')},
        'rubric', ${judge}->'rubric', 'system_prompt', ${judge}->'system_prompt',
        'task_context', ${jsonOr(`${judge}->'task_context'`, '{}')}) END) END`;
}

/**
 * toTask in SQL: one TaskSummary as JSON from a row of TASK_SELECT under
 * `alias` (REST task list, @RestJson); `readerOrgParam` is the bind
 * parameter holding the reader's organization id (toTask's `readerOrgId`).
 */
export function taskJson(alias: string, readerOrgParam: string): string {
  const c = (column: string) => `${alias}.${column}`;
  return compactJson(`
    ${c('id')} AS id, ${c('name')} AS name, ${c('version')} AS version, ${c('org_key')} AS org_key,
    ${c('organization_id')} AS organization_id, ${jsonTimestamp(c('created_at'))} AS created_at,
    coalesce(${c('file_size')}, 0) AS file_size, ${c('is_public')} AS is_public, ${c('template_status')} AS template_status,
    ${c('sandbox_provider')} AS sandbox_provider, ${c('description')} AS description, ${c('author')} AS author,
    ${c('difficulty')} AS difficulty, ${c('license')} AS license, ${c('oci_digest')} AS oci_digest, ${c('source')} AS source,
    ${c('tags')} AS tags, ${c('ports')} AS ports, ${verificationJson(c('verification'), verificationSecretsSql(c('organization_id'), readerOrgParam))} AS verification,
    ${c('version_count')} AS version_count`);
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

/** `readerOrgId`: the organization the reply is built for, kept for the set's `tasks` (see toTask). */
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

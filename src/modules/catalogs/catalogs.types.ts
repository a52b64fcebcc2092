import { derived, expression, fromRow, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { jsonOr } from '../../db/json-sql';
import { TASKS_READ_BY_ROUTE, verificationSql } from './task-verification.policy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { JSONObjectScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { LabelFacetEntry } from '../sessions/sessions.types';
import { EMBEDDED_LIST_CAP, PageEnvelope, pageItems } from '../../core/pagination';
import { MAX_CAPABILITY_FILES, MAX_TAGS, MAX_TASK_SET_MEMBERS } from './catalogs.inputs';

export enum CatalogSortDirection {
  asc = 'asc',
  desc = 'desc',
}
registerEnumType(CatalogSortDirection, { name: 'CatalogSortDirection' });

export enum DatasetSortBy {
  name = 'name',
  created_at = 'created_at',
  updated_at = 'updated_at',
  row_count = 'row_count',
  file_size_bytes = 'file_size_bytes',
}
registerEnumType(DatasetSortBy, { name: 'DatasetSortBy' });

export enum CapabilitySortBy {
  name = 'name',
  created_at = 'created_at',
  updated_at = 'updated_at',
}
registerEnumType(CapabilitySortBy, { name: 'CapabilitySortBy' });

export enum TaskSortBy {
  name = 'name',
  difficulty = 'difficulty',
  source = 'source',
  author = 'author',
  created_at = 'created_at',
  file_size = 'file_size',
}
registerEnumType(TaskSortBy, { name: 'TaskSortBy' });

export enum TaskSetSortBy {
  name = 'name',
  created_at = 'created_at',
  updated_at = 'updated_at',
}
registerEnumType(TaskSetSortBy, { name: 'TaskSetSortBy' });

export enum TaskTemplateStatus {
  pending = 'pending',
  building = 'building',
  ready = 'ready',
  failed = 'failed',
}
registerEnumType(TaskTemplateStatus, { name: 'TaskTemplateStatus' });

export enum VerificationMethod {
  script = 'script',
  flag = 'flag',
  outcome_judge = 'outcome_judge',
  script_and_judge = 'script_and_judge',
  flag_and_judge = 'flag_and_judge',
}
registerEnumType(VerificationMethod, { name: 'VerificationMethod' });

export enum VerificationWhere {
  agent = 'agent',
  environment = 'environment',
}
registerEnumType(VerificationWhere, { name: 'VerificationWhere' });

export enum TrajectoryJudgeKind {
  trajectory = 'trajectory',
}
registerEnumType(TrajectoryJudgeKind, { name: 'TrajectoryJudgeKind' });

export enum ComponentType {
  agent = 'agent',
  tool = 'tool',
  command = 'command',
  skill = 'skill',
  mcp_server = 'mcp_server',
  worker = 'worker',
}

// ---------------------------------------------------------------- datasets

@ObjectType('DatasetArtifactSummary', { description: 'The latest (or a given) version of a dataset.' })
export class DatasetArtifactSummary {
  @Sql()
  @Field(() => String, { description: 'Artifact UUID.' })
  id: string;

  @Sql(expression((a) => `(SELECT dso.key FROM organizations dso WHERE dso.id = ${a}.organization_id) || '/' || ${a}.name`))
  @Field(() => String, { description: 'Organization-prefixed canonical name, `<org>/<name>`.' })
  name: string;

  @Sql()
  @Field(() => String, { description: 'Semantic version.' })
  version: string;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  updated_at: Date | null;

  @Sql(expression((a) => `coalesce(${a}.format, 'parquet')`))
  @Field(() => String, { description: 'Default parquet.' })
  format: string;

  @Sql()
  @Field(() => Boolean)
  is_public: boolean;

  @Sql(expression((a) => `coalesce(${a}.download_count, 0)`))
  @Field(() => Int)
  download_count: number;

  @Sql(expression((a) => jsonOr(`${a}.origin`, '{}')))
  @Field(() => JSONObjectScalar)
  origin: Record<string, unknown>;

  @Sql()
  @Field(() => String, { nullable: true })
  pretty_name: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  summary: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  license: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  size_category: string | null;

  @Sql()
  @Field(() => [String], { nullable: true })
  @MaxItems(() => MAX_TAGS)
  language: string[] | null;

  @Sql()
  @Field(() => [String], { nullable: true })
  @MaxItems(() => MAX_TAGS)
  tags: string[] | null;

  @Sql()
  @Field(() => [String], { nullable: true })
  @MaxItems(() => MAX_TAGS)
  task_categories: string[] | null;

  @Sql()
  @Field(() => Int, { nullable: true })
  column_count: number | null;

  @Sql()
  @Field(() => TokenCountScalar, { nullable: true, description: 'An integer up to 2^53 - 1.' })
  row_count: number | null;

  @Sql(expression((a) => `(SELECT count(*) FROM datasets v WHERE v.organization_id = ${a}.organization_id AND v.name = ${a}.name)`))
  @Field(() => Int, { nullable: true, description: 'How many versions the name has.' })
  version_count: number | null;

  /** For GraphQL navigation only (not a field). */
  organization_id?: string;
}

@ObjectType('DatasetArtifactListResponse')
export class DatasetArtifactListResponse extends PageEnvelope {
  @Sql(pageItems('datasets'))
  @Field(() => [DatasetArtifactSummary])
  @PageItems()
  datasets: DatasetArtifactSummary[];

}

@ObjectType('DatasetVersionList', { description: 'Versions of a dataset, newest first, and the latest one.' })
export class DatasetVersionList {
  @Field(() => String)
  name: string;

  @Field(() => [String])
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  @Field(() => DatasetArtifactSummary, { nullable: true })
  latest: DatasetArtifactSummary | null;
}

/** Values each facet list keeps (its most frequent; catalogs.sql). */
export const FACET_MAX_VALUES = 100;

@ObjectType('DatasetFacetsResponse')
export class DatasetFacetsResponse {
  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  tags: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  licenses: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  formats: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  size_categories: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  task_categories: LabelFacetEntry[];

  @Field(() => Int)
  total: number;

  @Field(() => Int)
  filtered_total: number;
}

// ------------------------------------------------------------ capabilities

@ObjectType('CapabilityComponentDetail')
export class CapabilityComponentDetail {
  @Sql()
  @Field(() => String)
  name: string;

  @Sql()
  @Field(() => String, { description: 'Relative path in the bundle.' })
  path: string;

  @Sql()
  @Field(() => String, { description: 'agent, tool, command, skill, mcp_server or worker.' })
  type: string;

  @Sql(derived((c) => c.description ?? null))
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql(derived((c) => c.metadata ?? null))
  @Field(() => JSONObjectScalar, { nullable: true })
  metadata: Record<string, unknown> | null;
}

@ObjectType('CapabilitySecretRequirement')
export class CapabilitySecretRequirement {
  @Sql()
  @Field(() => String, { description: 'Environment-variable name.' })
  name: string;

  @Sql(derived((s) => s.required ?? true))
  @Field(() => Boolean, { description: 'Default true.' })
  required: boolean;
}

@ObjectType('CapabilityFileEntry')
export class CapabilityFileEntry {
  @Field(() => String)
  path: string;

  @Field(() => String)
  sha256: string;

  @Field(() => Int)
  size_bytes: number;
}

@ObjectType('CapabilityArtifactSummary')
export class CapabilityArtifactSummary {
  @Sql()
  @Field(() => String)
  id: string;

  @Sql(derived((row) => (row.organization_id === row.viewer_org_id ? row.name : `${row.org_key}/${row.name}`)))
  @Field(() => String, { description: "Local name on the organization's own capabilities, `<owner>/<name>` for another organization's." })
  name: string;

  @Sql()
  @Field(() => String)
  version: string;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Sql()
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  author_name: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  license: string | null;

  @Sql()
  @Field(() => Boolean)
  is_public: boolean;

  @Sql(derived((row) => row.keywords ?? []))
  @Field(() => [String])
  @MaxItems(() => MAX_TAGS)
  keywords: string[];

  @Sql(derived((row) => row.origin ?? {}))
  @Field(() => JSONObjectScalar)
  origin: Record<string, unknown>;

  @Sql(derived((row) => row.component_counts ?? {}))
  @Field(() => JSONObjectScalar, { description: 'Component type → count.' })
  component_counts: Record<string, number>;

  @Sql(derived((row) => ((row.component_details ?? []) as object[]).map((c) => fromRow(CapabilityComponentDetail, c))))
  @Field(() => [CapabilityComponentDetail])
  @MaxItems(NOMINAL_MAX_ITEMS)
  component_details: CapabilityComponentDetail[];

  @Sql(derived((row) => ((row.secrets ?? []) as object[]).map((s) => fromRow(CapabilitySecretRequirement, s))))
  @Field(() => [CapabilitySecretRequirement])
  @MaxItems(NOMINAL_MAX_ITEMS)
  secrets: CapabilitySecretRequirement[];

  @Sql(derived((row) => Number(row.version_count ?? 1)))
  @Field(() => Int)
  version_count: number;

  @Sql(derived((row) => row.versions ?? [row.version]))
  @Field(() => [String], { description: 'Newest first.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  /** For GraphQL navigation only (not a field). */
  organization_id?: string;
  /** The local name, for GraphQL navigation only (not a field). */
  local_name?: string;
}

@ObjectType('CapabilityArtifactDetail')
export class CapabilityArtifactDetail extends CapabilityArtifactSummary {
  @Sql()
  @Field(() => String, { description: 'sha256 of the uploaded bundle (each path and content, in upload order).' })
  artifact_sha256: string;

  @Sql()
  @Field(() => String, { description: '`sha256:<hex>` over the manifest and the sorted file list: independent of file order.' })
  runtime_digest: string;

  @Sql(derived((row) => row.manifest ?? {}))
  @Field(() => JSONObjectScalar)
  manifest: Record<string, unknown>;

  @Sql(derived((row) => row.file_manifest ?? []))
  @Field(() => [CapabilityFileEntry])
  @MaxItems(() => MAX_CAPABILITY_FILES)
  file_manifest: CapabilityFileEntry[];
}

@ObjectType('CapabilityVersionList')
export class CapabilityVersionList {
  @Field(() => String)
  name: string;

  @Field(() => [String], { description: 'Newest first.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  @Field(() => CapabilityArtifactSummary, { nullable: true })
  latest: CapabilityArtifactSummary | null;
}

@ObjectType('CapabilityArtifactListResponse')
export class CapabilityArtifactListResponse extends PageEnvelope {
  @Field(() => [CapabilityArtifactSummary])
  @PageItems()
  capabilities: CapabilityArtifactSummary[];

}

@ObjectType('CapabilityFacetsResponse')
export class CapabilityFacetsResponse {
  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  keywords: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  authors: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  licenses: LabelFacetEntry[];

  @Field(() => Int)
  total: number;

  @Field(() => Int)
  filtered_total: number;
}

// ------------------------------------------------------------------- tasks

@ObjectType('TrajectoryJudgeConfig', { description: 'Inline configuration of an outcome judge of kind trajectory.' })
export class TrajectoryJudgeConfig {
  @Field(() => TrajectoryJudgeKind)
  kind: TrajectoryJudgeKind;

  @Field(() => Int, { description: '1 to 500, default 50.' })
  max_steps: number;

  @Field(() => String)
  model: string;

  @Field(() => JSONObjectScalar)
  model_params: Record<string, unknown>;

  @Field(() => String, { nullable: true })
  rubric: string | null;

  @Field(() => String, { nullable: true })
  system_prompt: string | null;

  @Field(() => JSONObjectScalar)
  task_context: Record<string, unknown>;
}

@ObjectType('VerificationConfig')
export class VerificationConfig {
  @Field(() => VerificationMethod, { nullable: true })
  method: VerificationMethod | null;

  @Field(() => String, { nullable: true })
  hash: string | null;

  @Field(() => String, { nullable: true })
  path: string | null;

  @Field(() => String, { nullable: true, description: "The verification script; null outside the task's own organization." })
  script: string | null;

  @Field(() => String, { nullable: true, description: "The flag in clear; null outside the task's own organization (hash stays)." })
  value: string | null;

  @Field(() => Int, { description: 'Seconds, default 30.' })
  timeout: number;

  @Field(() => VerificationWhere, { description: 'Default environment; applies to method script only.' })
  where: VerificationWhere;

  @Field(() => TrajectoryJudgeConfig, { nullable: true })
  judge: TrajectoryJudgeConfig | null;
}

@ObjectType('TaskSummary')
export class TaskSummary {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String)
  name: string;

  @Sql()
  @Field(() => String)
  version: string;

  @Sql(expression((a) => `(SELECT tko.key FROM organizations tko WHERE tko.id = ${a}.organization_id)`))
  @Field(() => String, { description: 'The owning organization key.' })
  org_key: string;

  @Sql()
  @Field(() => UUIDScalar)
  organization_id: string;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(expression((a) => `coalesce(${a}.file_size, 0)`))
  @Field(() => TokenCountScalar, { description: 'Archive bytes.' })
  file_size: number;

  @Sql()
  @Field(() => Boolean)
  is_public: boolean;

  @Sql()
  @Field(() => TaskTemplateStatus)
  template_status: TaskTemplateStatus;

  @Sql()
  @Field(() => String, { description: '`docker` or `hosted` (default).' })
  sandbox_provider: string;

  @Sql()
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  author: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  difficulty: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  license: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  oci_digest: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  source: string | null;

  @Sql()
  @Field(() => [String], { nullable: true })
  @MaxItems(() => MAX_TAGS)
  tags: string[] | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Key → list of port numbers.' })
  ports: Record<string, number[]> | null;

  @Sql(expression(verificationSql))
  @Field(() => VerificationConfig, { nullable: true })
  verification: VerificationConfig | null;

  @Sql(expression((a) => `(SELECT count(*)::int FROM tasks tv WHERE tv.organization_id = ${a}.organization_id AND tv.name = ${a}.name)`))
  @Field(() => Int, { nullable: true })
  version_count: number | null;
}

@ObjectType('TaskListResponse')
export class TaskListResponse extends PageEnvelope {
  @Sql(pageItems(TASKS_READ_BY_ROUTE))
  @Field(() => [TaskSummary])
  @PageItems()
  tasks: TaskSummary[];

}

@ObjectType('TaskVersionList')
export class TaskVersionList {
  @Field(() => String)
  name: string;

  @Field(() => [String], { description: 'Newest first.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  @Field(() => TaskSummary, { nullable: true })
  latest: TaskSummary | null;
}

@ObjectType('TaskScopeCounts')
export class TaskScopeCounts {
  @Field(() => Int, { description: 'Task names (latest version) owned by the organization.' })
  org: number;

  @Field(() => Int, { description: 'Public task names (latest version) across organizations.' })
  public: number;

  @Field(() => Int, { nullable: true, description: 'Always null for tasks.' })
  mine: number | null;
}

@ObjectType('TaskFacetsResponse')
export class TaskFacetsResponse {
  @Field(() => [String])
  @MaxItems(FACET_MAX_VALUES)
  authors: string[];

  @Field(() => [String])
  @MaxItems(FACET_MAX_VALUES)
  difficulties: string[];

  @Field(() => [String])
  @MaxItems(FACET_MAX_VALUES)
  sources: string[];

  @Field(() => [String])
  @MaxItems(FACET_MAX_VALUES)
  tags: string[];

  @Field(() => Int, { description: 'Tasks matching every filter.' })
  filtered_total: number;

  @Field(() => Int, { description: 'Tasks in scope, unfiltered.' })
  total: number;

  @Field(() => TaskScopeCounts)
  scope_counts: TaskScopeCounts;
}

// --------------------------------------------------------------- task sets

@ObjectType('TaskSetResponse')
export class TaskSetResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String)
  name: string;

  @Sql()
  @Field(() => String, { description: 'The owning organization key.' })
  org_key: string;

  @Sql()
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql(derived((row) => row.members ?? []))
  @Field(() => [String], {
    description: `Task names: \`name\` (latest) or \`name@version\`; the first ${EMBEDDED_LIST_CAP} in a list (member_count counts them all), all of them in a single read.`,
  })
  @MaxItems(() => MAX_TASK_SET_MEMBERS)
  members: string[];

  @Sql(derived((row) => row.member_count ?? (row.members as unknown[] | null)?.length ?? 0))
  @Field(() => Int)
  member_count: number;

  @Sql()
  @Field(() => Boolean)
  is_public: boolean;

  @Sql()
  @Field(() => String, { nullable: true })
  source: string | null;

  @Sql()
  @Field(() => [String], { nullable: true })
  @MaxItems(() => MAX_TAGS)
  tags: string[] | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  /** For GraphQL navigation only (not a field). */
  organization_id?: string;
  /** Not a field: the organization the reply is built for, which decides its member tasks' verification secrets. */
  reader_org_id?: string;
}

@ObjectType('TaskSetListResponse')
export class TaskSetListResponse extends PageEnvelope {
  @Field(() => [TaskSetResponse])
  @PageItems()
  task_sets: TaskSetResponse[];

}

@ObjectType('TaskSetFacetsResponse')
export class TaskSetFacetsResponse {
  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  sources: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  tags: LabelFacetEntry[];

  @Field(() => Int)
  total: number;

  @Field(() => Int)
  filtered_total: number;
}

@ObjectType('TaskSetDeleteResponse')
export class TaskSetDeleteResponse {
  @Field(() => String)
  name: string;

  @Field(() => Boolean)
  deleted: boolean;
}

// ----------------------------------------------------------------- shared

@ObjectType('ArtifactDeleteResponse', { description: 'Reply of a version deletion.' })
export class ArtifactDeleteResponse {
  @Field(() => String)
  name: string;

  @Field(() => String)
  version: string;

  @Field(() => Boolean)
  deleted: boolean;
}

@ObjectType('ArtifactReadmeResponse')
export class ArtifactReadmeResponse {
  @Field(() => String)
  name: string;

  @Field(() => String)
  version: string;

  @Field(() => String, { nullable: true, description: "A capability's published README.md, or a task's readme; null when none." })
  content: string | null;
}

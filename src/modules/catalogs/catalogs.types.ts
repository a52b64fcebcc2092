import { derived, expression, fromRow, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { jsonOr } from '../../db/json-sql';
import { TASKS_READ_BY_ROUTE, verificationSql } from './task-verification.policy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxBytes, MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { MAX_FREE_FORM_JSON_BYTES } from '../../core/validation/json-bytes';
import { JSONObjectScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { LabelFacetEntry } from '../sessions/sessions.types';
import { EMBEDDED_LIST_CAP, PageEnvelope, pageItems, TOP_VALUES } from '../../core/pagination';
import { DEFAULT_DATASET_FORMAT } from './dataset-format';
import { MAX_CAPABILITY_FILES, MAX_DATASET_FILES, MAX_JUDGE_TEXT, MAX_MANIFEST_BYTES, MAX_ORIGIN_BYTES, MAX_TAGS, MAX_TASK_SET_MEMBERS, MAX_VERIFICATION_SCRIPT } from './catalogs.limits';

export enum CatalogSortDirection {
  asc = 'asc',
  desc = 'desc',
}
registerEnumType(CatalogSortDirection, {
  name: 'CatalogSortDirection',
  description: 'Sort direction of a catalog list.',
  valuesConfig: {
    asc: { description: 'Ascending.' },
    desc: { description: 'Descending (default).' },
  },
});

export enum DatasetSortBy {
  name = 'name',
  created_at = 'created_at',
  updated_at = 'updated_at',
  row_count = 'row_count',
  file_size_bytes = 'file_size_bytes',
}
registerEnumType(DatasetSortBy, {
  name: 'DatasetSortBy',
  description: 'Order of a dataset list (nulls last, ties broken by id).',
  valuesConfig: {
    name: { description: 'By name.' },
    created_at: { description: 'By publication time (default).' },
    updated_at: { description: 'By last change.' },
    row_count: { description: 'By number of rows.' },
    file_size_bytes: { description: 'By file size.' },
  },
});

export enum CapabilitySortBy {
  name = 'name',
  created_at = 'created_at',
  updated_at = 'updated_at',
}
registerEnumType(CapabilitySortBy, {
  name: 'CapabilitySortBy',
  description: 'Order of a capability list (ties broken by id).',
  valuesConfig: {
    name: { description: 'By name.' },
    created_at: { description: 'By publication time (default).' },
    updated_at: { description: 'By last change.' },
  },
});

export enum TaskSortBy {
  name = 'name',
  difficulty = 'difficulty',
  source = 'source',
  author = 'author',
  created_at = 'created_at',
  file_size = 'file_size',
}
registerEnumType(TaskSortBy, {
  name: 'TaskSortBy',
  description: 'Order of a task list (nulls last, ties broken by id).',
  valuesConfig: {
    name: { description: 'By name.' },
    difficulty: { description: 'By difficulty.' },
    source: { description: 'By source.' },
    author: { description: 'By author.' },
    created_at: { description: 'By publication time (default).' },
    file_size: { description: 'By archive size.' },
  },
});

export enum TaskSetSortBy {
  name = 'name',
  created_at = 'created_at',
  updated_at = 'updated_at',
}
registerEnumType(TaskSetSortBy, {
  name: 'TaskSetSortBy',
  description: 'Order of a task-set list (ties broken by id).',
  valuesConfig: {
    name: { description: 'By name.' },
    created_at: { description: 'By creation time (default).' },
    updated_at: { description: 'By last change.' },
  },
});

export enum TaskTemplateStatus {
  pending = 'pending',
  building = 'building',
  ready = 'ready',
  failed = 'failed',
}
registerEnumType(TaskTemplateStatus, {
  name: 'TaskTemplateStatus',
  description: "Build status of a task's environment template.",
  valuesConfig: {
    pending: { description: 'Not built yet (default).' },
    building: { description: 'Being built.' },
    ready: { description: 'Built and usable.' },
    failed: { description: 'The build failed.' },
  },
});

export enum VerificationMethod {
  script = 'script',
  flag = 'flag',
  outcome_judge = 'outcome_judge',
  script_and_judge = 'script_and_judge',
  flag_and_judge = 'flag_and_judge',
}
registerEnumType(VerificationMethod, {
  name: 'VerificationMethod',
  description: "How a task's result is verified.",
  valuesConfig: {
    script: { description: 'A verification script checks the result.' },
    flag: { description: "The agent must submit the task's flag." },
    outcome_judge: { description: 'A judge model assesses the outcome (see `judge`).' },
    script_and_judge: { description: 'A verification script and a judge model.' },
    flag_and_judge: { description: 'A flag and a judge model.' },
  },
});

export enum VerificationWhere {
  agent = 'agent',
  environment = 'environment',
}
registerEnumType(VerificationWhere, {
  name: 'VerificationWhere',
  description: 'Where a verification script runs (method `script` only).',
  valuesConfig: {
    agent: { description: "In the agent's environment." },
    environment: { description: "In the task's environment (default)." },
  },
});

export enum TrajectoryJudgeKind {
  trajectory = 'trajectory',
}
registerEnumType(TrajectoryJudgeKind, {
  name: 'TrajectoryJudgeKind',
  description: 'Kind of an outcome judge.',
  valuesConfig: {
    trajectory: { description: "Judges the agent's trajectory (the only kind, and the default)." },
  },
});

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
  @Field(() => Date, { description: 'When this version was published.' })
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When this version was last changed (its publication, or a visibility change of the name).' })
  updated_at: Date | null;

  @Sql(expression((a) => `coalesce(${a}.format, '${DEFAULT_DATASET_FORMAT}')`))
  @Field(() => String, { description: `Default ${DEFAULT_DATASET_FORMAT}.` })
  format: string;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the dataset is visible to every organization (set for the name, so every version).' })
  is_public: boolean;

  @Sql(expression((a) => `coalesce(${a}.download_count, 0)`))
  @Field(() => Int, { description: 'Number of recorded downloads of this version (default 0).' })
  download_count: number;

  @Sql(expression((a) => jsonOr(`${a}.origin`, '{}')))
  @Field(() => JSONObjectScalar, { description: 'Where the data comes from (free-form, as published); empty when not given.' })
  @MaxBytes(MAX_ORIGIN_BYTES)
  origin: Record<string, unknown>;

  @Sql()
  @Field(() => String, { nullable: true, description: 'A display name; null when not given.' })
  pretty_name: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'A summary of the dataset; null when not given.' })
  summary: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: "The dataset's license; null when not given." })
  license: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'A size bucket, as published; null when not given.' })
  size_category: string | null;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Languages of the data; null when not given.' })
  @MaxItems(() => MAX_TAGS)
  language: string[] | null;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Tags; null when not given.' })
  @MaxItems(() => MAX_TAGS)
  tags: string[] | null;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Task categories the data serves; null when not given.' })
  @MaxItems(() => MAX_TAGS)
  task_categories: string[] | null;

  @Sql()
  @Field(() => Int, { nullable: true, description: 'Number of columns; null when not given.' })
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

@ObjectType('DatasetArtifactListResponse', { description: 'One page of datasets: the latest version of each name.' })
export class DatasetArtifactListResponse extends PageEnvelope {
  @Sql(pageItems('datasets'))
  @Field(() => [DatasetArtifactSummary], { description: 'The datasets of this page.' })
  @PageItems()
  datasets: DatasetArtifactSummary[];

}

@ObjectType('DatasetVersionList', { description: 'Versions of a dataset, newest first, and the latest one.' })
export class DatasetVersionList {
  @Field(() => String, { description: "The dataset's name." })
  name: string;

  @Field(() => [String], { description: "The dataset's versions, newest first." })
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  @Field(() => DatasetArtifactSummary, { nullable: true, description: 'The latest (highest) version; null when none is left.' })
  latest: DatasetArtifactSummary | null;
}

@ObjectType('DatasetFacetsResponse', { description: 'Dataset facet counts: each dimension with the other filters applied and its own excluded.' })
export class DatasetFacetsResponse {
  @Field(() => [LabelFacetEntry], { description: 'Tag values with dataset counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  tags: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'License values with dataset counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  licenses: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Format values with dataset counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  formats: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Size categories with dataset counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  size_categories: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Task categories with dataset counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  task_categories: LabelFacetEntry[];

  @Field(() => Int, { description: 'Datasets in scope (latest version per name), unfiltered.' })
  total: number;

  @Field(() => Int, { description: 'Datasets matching every filter.' })
  filtered_total: number;
}

@ObjectType('DatasetDownloadFile', { description: 'One file of a dataset download, with its own signed link.' })
export class DatasetDownloadFile {
  @Field(() => String, { description: "The file's relative path in the version (and in the archive)." })
  path: string;

  @Field(() => String, { nullable: true, description: 'The split the file was published in; null when none.' })
  split: string | null;

  @Field(() => Int, { description: "The file's size in bytes." })
  size_bytes: number;

  @Field(() => String, { description: "SHA-256 of the file's content, hex." })
  sha256: string;

  @Field(() => String, { description: "An absolute, signed, expiring URL of the file's raw bytes (same expiry as the archive's): fetch it without any credential." })
  download_url: string;
}

@ObjectType('DatasetDownloadResponse', { description: 'Where to download a dataset version (decisions §14); the download is recorded.' })
export class DatasetDownloadResponse {
  @Field(() => String, { description: 'An absolute URL this service serves, signed and expiring, of the selected files as one tar.gz: fetch it without any credential.' })
  download_url: string;

  @Field(() => Date, { description: 'When the URLs stop working (15 minutes after they were made).' })
  expires_at: Date;

  @Field(() => String, { description: "The format asked for: `raw` or the dataset's own format (the files are served as published)." })
  format: string;

  @Field(() => [DatasetDownloadFile], { description: 'The selected files (every file, or those of the split asked for), in path order.' })
  @MaxItems(() => MAX_DATASET_FILES)
  files: DatasetDownloadFile[];
}

export enum DatasetActivityAction {
  publish = 'publish',
  download = 'download',
  delete = 'delete',
}
registerEnumType(DatasetActivityAction, {
  name: 'DatasetActivityAction',
  description: 'What happened to a dataset version.',
  valuesConfig: {
    publish: { description: 'The version was published.' },
    download: { description: 'The version was downloaded (a download link was made).' },
    delete: { description: 'The version was deleted.' },
  },
});

@ObjectType('DatasetActivityEntry', { description: "One publish, download or delete of a dataset version, in the organization's activity." })
export class DatasetActivityEntry {
  @Sql()
  @Field(() => UUIDScalar, { description: "The entry's id." })
  id: string;

  @Sql(expression((a) => `${a}.dataset_owner || '/' || ${a}.dataset_name`))
  @Field(() => String, { description: 'The canonical `<owner>/<name>` of the dataset, as it was (the entry outlives the version).' })
  dataset_name: string;

  @Sql()
  @Field(() => String, { description: 'The version acted on.' })
  version: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'The user who acted; null once that account is deleted.' })
  user_id: string | null;

  @Sql()
  @Field(() => DatasetActivityAction, { description: 'publish, download or delete.' })
  action: DatasetActivityAction;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The format asked for, on a download; null otherwise.' })
  format: string | null;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When it happened.' })
  created_at: Date;
}

@ObjectType('DatasetActivityListResponse', { description: "A page of the organization's dataset activity, newest first." })
export class DatasetActivityListResponse {
  @Field(() => [DatasetActivityEntry], { description: 'The entries of this page, newest first.' })
  @PageItems()
  items: DatasetActivityEntry[];

  @Field(() => Int, { description: 'Entries matching the filters, over every page.' })
  total: number;

  @Field(() => Int, { description: 'Entries per page, as asked (or its default).' })
  limit: number;

  @Field(() => Int, { description: 'Entries skipped, as asked (default 0).' })
  offset: number;
}

// ------------------------------------------------------------ capabilities

@ObjectType('CapabilityComponentDetail', { description: "A component a capability's manifest declares." })
export class CapabilityComponentDetail {
  @Sql()
  @Field(() => String, { description: "The component's name." })
  name: string;

  @Sql()
  @Field(() => String, { description: 'Relative path in the bundle.' })
  path: string;

  @Sql()
  @Field(() => String, { description: 'agent, tool, command, skill, mcp_server or worker.' })
  type: string;

  @Sql(derived((c) => c.description ?? null))
  @Field(() => String, { nullable: true, description: "The component's description; null when not given." })
  description: string | null;

  @Sql(derived((c) => c.metadata ?? null))
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata of the component; null when not given.' })
  metadata: Record<string, unknown> | null;
}

@ObjectType('CapabilitySecretRequirement', { description: 'A secret a capability needs at run time.' })
export class CapabilitySecretRequirement {
  @Sql()
  @Field(() => String, { description: 'Environment-variable name.' })
  name: string;

  @Sql(derived((s) => s.required ?? true))
  @Field(() => Boolean, { description: 'Default true.' })
  required: boolean;
}

@ObjectType('CapabilityFileEntry', { description: 'A file of a published capability.' })
export class CapabilityFileEntry {
  @Field(() => String, { description: "The file's relative path in the bundle." })
  path: string;

  @Field(() => String, { description: "SHA-256 of the file's content, hex." })
  sha256: string;

  @Field(() => Int, { description: "The file's size in bytes." })
  size_bytes: number;
}

@ObjectType('CapabilityArtifactSummary', { description: 'The latest (or a given) version of a capability.' })
export class CapabilityArtifactSummary {
  @Sql()
  @Field(() => String, { description: "The version's artifact id (UUID)." })
  id: string;

  @Sql(derived((row) => (row.organization_id === row.viewer_org_id ? row.name : `${row.org_key}/${row.name}`)))
  @Field(() => String, { description: "Local name on the organization's own capabilities, `<owner>/<name>` for another organization's." })
  name: string;

  @Sql()
  @Field(() => String, { description: 'Semantic version.' })
  version: string;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When this version was published.' })
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When this version was last changed (its publication, or a visibility change of the name).' })
  updated_at: Date;

  @Sql()
  @Field(() => String, { nullable: true, description: "The capability's description; null when not given." })
  description: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The author, from the manifest; null when not given.' })
  author_name: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The license, from the manifest; null when not given.' })
  license: string | null;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the capability is visible to every organization (set for the name, so every version).' })
  is_public: boolean;

  @Sql(derived((row) => row.keywords ?? []))
  @Field(() => [String], { description: 'Keywords, from the manifest; empty when none.' })
  @MaxItems(() => MAX_TAGS)
  keywords: string[];

  @Sql(derived((row) => row.origin ?? {}))
  @Field(() => JSONObjectScalar, { description: 'Where the capability comes from (free-form, from the manifest); empty when not given.' })
  @MaxBytes(MAX_ORIGIN_BYTES)
  origin: Record<string, unknown>;

  @Sql(derived((row) => row.component_counts ?? {}))
  @Field(() => JSONObjectScalar, { description: 'Component type → count.' })
  component_counts: Record<string, number>;

  @Sql(derived((row) => ((row.component_details ?? []) as object[]).map((c) => fromRow(CapabilityComponentDetail, c))))
  @Field(() => [CapabilityComponentDetail], { description: 'The components the manifest declares.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  // Their descriptions and metadata are bounded only by the manifest they come from.
  @MaxBytes(MAX_MANIFEST_BYTES)
  component_details: CapabilityComponentDetail[];

  @Sql(derived((row) => ((row.secrets ?? []) as object[]).map((s) => fromRow(CapabilitySecretRequirement, s))))
  @Field(() => [CapabilitySecretRequirement], { description: 'Secrets the capability needs, from the manifest.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  secrets: CapabilitySecretRequirement[];

  @Sql(derived((row) => Number(row.version_count ?? 1)))
  @Field(() => Int, { description: 'How many versions the name has.' })
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

@ObjectType('CapabilityArtifactDetail', { description: 'One version of a capability with its manifest and file list.' })
export class CapabilityArtifactDetail extends CapabilityArtifactSummary {
  @Sql()
  @Field(() => String, { description: 'sha256 of the uploaded bundle (each path and content, in upload order).' })
  artifact_sha256: string;

  @Sql()
  @Field(() => String, { description: '`sha256:<hex>` over the manifest and the sorted file list: independent of file order.' })
  runtime_digest: string;

  @Sql(derived((row) => row.manifest ?? {}))
  @Field(() => JSONObjectScalar, { description: 'The parsed capability manifest.' })
  @MaxBytes(MAX_MANIFEST_BYTES)
  manifest: Record<string, unknown>;

  @Sql(derived((row) => row.file_manifest ?? []))
  @Field(() => [CapabilityFileEntry], { description: 'The published files with their hashes and sizes.' })
  @MaxItems(() => MAX_CAPABILITY_FILES)
  file_manifest: CapabilityFileEntry[];
}

@ObjectType('CapabilityVersionList', { description: 'Versions of a capability, newest first, and the latest one.' })
export class CapabilityVersionList {
  @Field(() => String, { description: "The capability's name." })
  name: string;

  @Field(() => [String], { description: 'Newest first.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  @Field(() => CapabilityArtifactSummary, { nullable: true, description: 'The latest (highest) version; null when none is left.' })
  latest: CapabilityArtifactSummary | null;
}

@ObjectType('CapabilityArtifactListResponse', { description: 'One page of capabilities: the latest version of each name.' })
export class CapabilityArtifactListResponse extends PageEnvelope {
  @Field(() => [CapabilityArtifactSummary], { description: 'The capabilities of this page.' })
  @PageItems()
  capabilities: CapabilityArtifactSummary[];

}

@ObjectType('CapabilityFacetsResponse', { description: 'Capability facet counts: each dimension with the other filters applied and its own excluded.' })
export class CapabilityFacetsResponse {
  @Field(() => [LabelFacetEntry], { description: 'Keyword values with capability counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  keywords: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Author names with capability counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  authors: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'License values with capability counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  licenses: LabelFacetEntry[];

  @Field(() => Int, { description: 'Capabilities in scope (latest version per name), unfiltered.' })
  total: number;

  @Field(() => Int, { description: 'Capabilities matching every filter.' })
  filtered_total: number;
}

// ------------------------------------------------------------------- tasks

@ObjectType('TrajectoryJudgeConfig', { description: 'Inline configuration of an outcome judge of kind trajectory.' })
export class TrajectoryJudgeConfig {
  @Field(() => TrajectoryJudgeKind, { description: "The judge's kind (`trajectory`)." })
  kind: TrajectoryJudgeKind;

  @Field(() => Int, { description: '1 to 500, default 50.' })
  max_steps: number;

  @Field(() => String, { description: 'The judge model.' })
  model: string;

  @Field(() => JSONObjectScalar, { description: 'Parameters for the judge model (free-form); empty when none.' })
  @MaxBytes(MAX_FREE_FORM_JSON_BYTES)
  model_params: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: 'The rubric the judge grades against; null when none.' })
  @MaxBytes(MAX_JUDGE_TEXT)
  rubric: string | null;

  @Field(() => String, { nullable: true, description: "The judge's system prompt; null when none." })
  @MaxBytes(MAX_JUDGE_TEXT)
  system_prompt: string | null;

  @Field(() => JSONObjectScalar, { description: 'Extra task context for the judge (free-form); empty when none.' })
  @MaxBytes(MAX_FREE_FORM_JSON_BYTES)
  task_context: Record<string, unknown>;
}

@ObjectType('VerificationConfig', { description: "How a task's result is verified; `script` and `value` are shown only to the task's own organization." })
export class VerificationConfig {
  @Field(() => VerificationMethod, { nullable: true, description: 'The verification method; null when not given.' })
  method: VerificationMethod | null;

  @Field(() => String, { nullable: true, description: 'Hash of the expected flag; null when not given.' })
  hash: string | null;

  @Field(() => String, { nullable: true, description: "Where the agent's submission is read from; null when not given." })
  path: string | null;

  @Field(() => String, { nullable: true, description: "The verification script; null outside the task's own organization." })
  @MaxBytes(MAX_VERIFICATION_SCRIPT)
  script: string | null;

  @Field(() => String, { nullable: true, description: "The flag in clear; null outside the task's own organization (hash stays)." })
  value: string | null;

  @Field(() => Int, { description: 'Seconds, default 30.' })
  timeout: number;

  @Field(() => VerificationWhere, { description: 'Default environment; applies to method script only.' })
  where: VerificationWhere;

  @Field(() => TrajectoryJudgeConfig, { nullable: true, description: "The outcome judge's configuration; null when none." })
  judge: TrajectoryJudgeConfig | null;
}

@ObjectType('TaskSummary', { description: 'The latest (or a given) version of a task.' })
export class TaskSummary {
  @Sql()
  @Field(() => UUIDScalar, { description: "The version's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: "The task's name (local to its organization, see org_key)." })
  name: string;

  @Sql()
  @Field(() => String, { description: 'Semantic version.' })
  version: string;

  @Sql(expression((a) => `(SELECT tko.key FROM organizations tko WHERE tko.id = ${a}.organization_id)`))
  @Field(() => String, { description: 'The owning organization key.' })
  org_key: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the owning organization.' })
  organization_id: string;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When this version was published.' })
  created_at: Date;

  @Sql(expression((a) => `coalesce(${a}.file_size, 0)`))
  @Field(() => TokenCountScalar, { description: 'Archive bytes.' })
  file_size: number;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the task is visible to every organization (set for the name, so every version).' })
  is_public: boolean;

  @Sql()
  @Field(() => TaskTemplateStatus, { description: "Build status of the task's environment template." })
  template_status: TaskTemplateStatus;

  @Sql()
  @Field(() => String, { description: '`docker` or `hosted` (default).' })
  sandbox_provider: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The task's description; null when not given." })
  description: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: "The task's author; null when not given." })
  author: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: "The task's difficulty, as published; null when not given." })
  difficulty: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: "The task's license; null when not given." })
  license: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: "Digest of the task's OCI image; null when not given." })
  oci_digest: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Where the task comes from; null when not given.' })
  source: string | null;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Tags; null when not given.' })
  @MaxItems(() => MAX_TAGS)
  tags: string[] | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Key → list of port numbers.' })
  @MaxBytes(MAX_FREE_FORM_JSON_BYTES)
  ports: Record<string, number[]> | null;

  @Sql(expression(verificationSql))
  @Field(() => VerificationConfig, { nullable: true, description: "How the task's result is verified; null when the task has none (it then cannot be evaluated)." })
  verification: VerificationConfig | null;

  @Sql(expression((a) => `(SELECT count(*)::int FROM tasks tv WHERE tv.organization_id = ${a}.organization_id AND tv.name = ${a}.name)`))
  @Field(() => Int, { nullable: true, description: 'How many versions the name has.' })
  version_count: number | null;
}

@ObjectType('TaskListResponse', { description: 'One page of tasks: the latest version of each name.' })
export class TaskListResponse extends PageEnvelope {
  @Sql(pageItems(TASKS_READ_BY_ROUTE))
  @Field(() => [TaskSummary], { description: 'The tasks of this page.' })
  @PageItems()
  tasks: TaskSummary[];

}

@ObjectType('TaskVersionList', { description: 'Versions of a task, newest first, and the latest one.' })
export class TaskVersionList {
  @Field(() => String, { description: "The task's name." })
  name: string;

  @Field(() => [String], { description: 'Newest first.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  versions: string[];

  @Field(() => TaskSummary, { nullable: true, description: 'The latest (highest) version; null when none is left.' })
  latest: TaskSummary | null;
}

@ObjectType('TaskScopeCounts', { description: 'Task counts by scope, whatever the filters.' })
export class TaskScopeCounts {
  @Field(() => Int, { description: 'Task names (latest version) owned by the organization.' })
  org: number;

  @Field(() => Int, { description: 'Public task names (latest version) across organizations.' })
  public: number;

  @Field(() => Int, { nullable: true, description: 'Always null for tasks.' })
  mine: number | null;
}

@ObjectType('TaskFacetsResponse', { description: 'Task facet values: each dimension with the other filters applied and its own excluded.' })
export class TaskFacetsResponse {
  @Field(() => [String], { description: 'Distinct authors.' })
  @MaxItems(TOP_VALUES)
  authors: string[];

  @Field(() => [String], { description: 'Distinct difficulties.' })
  @MaxItems(TOP_VALUES)
  difficulties: string[];

  @Field(() => [String], { description: 'Distinct sources.' })
  @MaxItems(TOP_VALUES)
  sources: string[];

  @Field(() => [String], { description: 'Distinct tags.' })
  @MaxItems(TOP_VALUES)
  tags: string[];

  @Field(() => Int, { description: 'Tasks matching every filter.' })
  filtered_total: number;

  @Field(() => Int, { description: 'Tasks in scope, unfiltered.' })
  total: number;

  @Field(() => TaskScopeCounts, { description: 'Counts by scope.' })
  scope_counts: TaskScopeCounts;
}

// --------------------------------------------------------------- task sets

@ObjectType('TaskSetResponse', { description: 'A named list of tasks to evaluate together.' })
export class TaskSetResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The task set's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: "The task set's name." })
  name: string;

  @Sql()
  @Field(() => String, { description: 'The owning organization key.' })
  org_key: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The task set's description; null when not given." })
  description: string | null;

  @Sql(derived((row) => row.members ?? []))
  @Field(() => [String], {
    description: `Task names: \`name\` (latest) or \`name@version\`; the first ${EMBEDDED_LIST_CAP} in a list (member_count counts them all), all of them in a single read.`,
  })
  @MaxItems(() => MAX_TASK_SET_MEMBERS)
  members: string[];

  @Sql(derived((row) => row.member_count ?? (row.members as unknown[] | null)?.length ?? 0))
  @Field(() => Int, { description: 'Number of members (all of them, even when `members` is cut).' })
  member_count: number;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the task set is visible to every organization.' })
  is_public: boolean;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Where the task set comes from; null when not given.' })
  source: string | null;

  @Sql()
  @Field(() => [String], { nullable: true, description: 'Tags; null when not given.' })
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

@ObjectType('TaskSetListResponse', { description: 'One page of task sets.' })
export class TaskSetListResponse extends PageEnvelope {
  @Field(() => [TaskSetResponse], { description: 'The task sets of this page.' })
  @PageItems()
  task_sets: TaskSetResponse[];

}

@ObjectType('TaskSetFacetsResponse', { description: 'Task-set facet counts: each dimension with the other filters applied and its own excluded.' })
export class TaskSetFacetsResponse {
  @Field(() => [LabelFacetEntry], { description: 'Source values with task-set counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  sources: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Tag values with task-set counts, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  tags: LabelFacetEntry[];

  @Field(() => Int, { description: 'Task sets in scope, unfiltered.' })
  total: number;

  @Field(() => Int, { description: 'Task sets matching every filter.' })
  filtered_total: number;
}

@ObjectType('TaskSetDeleteResponse', { description: 'The result of deleting a task set.' })
export class TaskSetDeleteResponse {
  @Field(() => String, { description: "The deleted task set's name." })
  name: string;

  @Field(() => Boolean, { description: 'Always true.' })
  deleted: boolean;
}

// ----------------------------------------------------------------- shared

@ObjectType('ArtifactDeleteResponse', { description: 'Reply of a version deletion.' })
export class ArtifactDeleteResponse {
  @Field(() => String, { description: "The artifact's name." })
  name: string;

  @Field(() => String, { description: 'The deleted version.' })
  version: string;

  @Field(() => Boolean, { description: 'Always true.' })
  deleted: boolean;
}

@ObjectType('CapabilityBundleResponse', { description: "Where to download a capability version's files as one tar.gz (decisions §14)." })
export class CapabilityBundleResponse {
  @Field(() => String, { description: 'An absolute URL this service serves, signed and expiring: fetch it without any credential.' })
  download_url: string;

  @Field(() => Date, { description: 'When the URL stops working (15 minutes after it was made).' })
  expires_at: Date;

  @Field(() => String, { description: 'SHA-256 (hex) of the archive the URL serves.' })
  sha256: string;

  @Field(() => Int, { description: 'Size of the archive in bytes.' })
  size_bytes: number;
}

@ObjectType('TaskInstructionResponse', { description: "The latest version's instruction of a task (decisions §14)." })
export class TaskInstructionResponse {
  @Field(() => String, { description: "The task's name." })
  name: string;

  @Field(() => String, { description: 'The version the instruction belongs to (the latest).' })
  version: string;

  @Field(() => String, { nullable: true, description: 'The instruction given at publication; null when none.' })
  instruction: string | null;
}

@ObjectType('ArtifactReadmeResponse', { description: 'The readme of a capability or task version.' })
export class ArtifactReadmeResponse {
  @Field(() => String, { description: "The artifact's name." })
  name: string;

  @Field(() => String, { description: 'The version the readme belongs to.' })
  version: string;

  @Field(() => String, { nullable: true, description: "A capability's published README.md, or a task's readme; null when none." })
  content: string | null;
}

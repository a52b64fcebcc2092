import { ArrayMaxSize, IsIn, Matches, Max, MaxLength, Min, MinLength, ValidateBy, ValidateNested, type ValidationOptions } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { MAX_FILTER_VALUES, MAX_OFFSET_ROWS, PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { JSONObjectScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { FREE_FORM_JSON_LIMIT, FreeFormJson, MaxJsonBytes } from '../../core/validation/json-bytes';
import { ApiInput } from '../../core/validation/api-input';
import { bundlePathProblem, isStrictBase64, MAX_BUNDLE_PATH_LENGTH } from './capability-file-rules';
import { DEFAULT_DATASET_FORMAT } from './dataset-format';
import { isCatalogVersion } from './semver-key';
import { MAX_CAPABILITY_FILES, MAX_DATASET_FILES, MAX_JUDGE_TEXT, MAX_MANIFEST_BYTES, MAX_ORIGIN_BYTES, MAX_TAG_LENGTH, MAX_TAGS, MAX_TASK_SET_MEMBERS, MAX_VERIFICATION_SCRIPT } from './catalogs.limits';
import {
  CapabilitySortBy,
  CatalogSortDirection,
  DatasetSortBy,
  TaskSetSortBy,
  TaskSortBy,
  TaskTemplateStatus,
  TrajectoryJudgeKind,
  VerificationMethod,
  VerificationWhere,
} from './catalogs.types';

/**
 * Names a new catalog may not take: routes of their own where a catalog's
 * name goes (`…/datasets/facets`, `…/datasets/activity`), so a catalog so
 * named could not be read by its latest version. Checked when a name is
 * given to a catalog, not when one is referred to (one published before
 * stays reachable). A test compares this list with the routes.
 */
export const RESERVED_CATALOG_NAMES = ['activity', 'facets'];
/** Catalog names: lower-case slugs (letters, digits, single `-`, `_` or `.` between them), 1 to 100 characters. */
export const CATALOG_NAME_PATTERN = /^[a-z0-9]+([._-][a-z0-9]+)*$/;
const NAME_DESCRIPTION = `Lower-case slug, 1 to 100 characters; not ${RESERVED_CATALOG_NAMES.join(' or ')}.`;
const NAME_MESSAGE = 'must be a lower-case slug: letters, digits and single -, _ or . between them';

/** A new catalog's name is not reserved (RESERVED_CATALOG_NAMES): 422 `value_error` at the field. */
function NotReservedName(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notReservedName',
      validator: {
        validate: (value) => !RESERVED_CATALOG_NAMES.includes(value as string),
        defaultMessage: () => `name must not be ${RESERVED_CATALOG_NAMES.join(' or ')}: routes of their own where a name goes`,
      },
    },
    options,
  );
}

/** Publishing files (capabilities, datasets): these routes alone take REST bodies up to 50 MiB (GraphQL keeps 1 MiB). */
export const FILES_BODY_LIMIT = 50 * 1024 * 1024;
/** A dataset split: letters, digits, `-`, `_` and `.`, 1 to 64 characters. */
export const DATASET_SPLIT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const SPLIT_MESSAGE = 'must be 1 to 64 letters, digits, -, _ or .';

function IsSemver(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSemver',
      validator: {
        validate: (value) => isCatalogVersion(value),
        defaultMessage: () => 'must be a semantic version such as 1.2.3 or 1.2.3-rc.1 (no leading v, no build metadata)',
      },
    },
    options,
  );
}

/** A relative bundle path (capability-file-rules.ts): 422 `value_error` at the field, saying what is wrong. */
function IsBundlePath(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isBundlePath',
      validator: { validate: (value) => bundlePathProblem(value) === null, defaultMessage: (args) => `path ${bundlePathProblem(args?.value) ?? 'is not valid'}` },
    },
    options,
  );
}

function IsBase64(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isBase64', validator: { validate: isStrictBase64, defaultMessage: () => 'must be valid base64' } }, options);
}

/**
 * A bundle's paths can be unpacked: each once, and none where another file's
 * directory is (`tools` beside `tools/run.py` would stop `tar` at the second).
 * Compared as the file systems that unpack them do: without case (Windows,
 * macOS), in one Unicode normal form (macOS) and without a segment's trailing
 * dots and spaces (Windows drops them), so `A.txt` beside `a.txt`, `café`
 * spelled composed beside decomposed, or `a.txt` beside `a.txt.` would be
 * one file there. (A segment of only dots and spaces is refused by the
 * file-name rule, so none folds to nothing.)
 */
function unpackablePaths(value: unknown): boolean {
  // Judged only when every path is a string within the path rule's length, in a list within its size: otherwise
  // those rules refuse the request already, and this one would only spend time on what a caller made long.
  if (!Array.isArray(value) || value.length > Math.max(MAX_CAPABILITY_FILES, MAX_DATASET_FILES)) return true;
  const sent = value.map((file: { path?: unknown }) => file?.path);
  if (!sent.every((path): path is string => typeof path === 'string' && path.length <= MAX_BUNDLE_PATH_LENGTH)) return true;
  // Upper then lower case: lower case alone keeps a final sigma (ς) apart from σ, which those file systems do not.
  const fold = (path: string) => path.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC').split('/').map(withoutTrailingDotsAndSpaces).join('/');
  const paths = new Set(sent.map(fold));
  if (paths.size !== value.length) return false;
  // A file named as another's directory: in code-unit order, the paths under `p/` follow one another, so one binary
  // search per path finds the first of them. (Looking up each path's every prefix cost length × depth: 2,000 paths of
  // 1,024 characters and 512 segments took 0.9 s.)
  const sorted = [...paths].sort();
  for (const path of sorted) {
    const directory = `${path}/`;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle] < directory) low = middle + 1;
      else high = middle;
    }
    if (low < sorted.length && sorted[low].startsWith(directory)) return false;
  }
  return true;
}

/** A segment without its trailing dots and spaces, in one pass (a regular expression for them backtracks over a run that ends elsewhere). */
function withoutTrailingDotsAndSpaces(segment: string): string {
  let end = segment.length;
  while (end > 0 && (segment[end - 1] === '.' || segment[end - 1] === ' ')) end -= 1;
  return segment.slice(0, end);
}

function UniquePaths(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'uniquePaths',
      validator: {
        validate: unpackablePaths,
        defaultMessage: () =>
          "file paths must be unique, ignoring case, Unicode normalization and trailing dots and spaces (A.txt beside a.txt, or a.txt beside a.txt., would unpack as one file on Windows or macOS), and no file may be named as another file's directory (tools beside tools/run.py)",
      },
    },
    options,
  );
}

function EachMaxLength(max: number, options?: ValidationOptions): PropertyDecorator {
  return MaxLength(max, { each: true, ...options });
}

// ------------------------------------------------------------ publishing

@ApiInput('CapabilityFileInput', { description: 'One file of a capability bundle.' })
export class CapabilityFileInput {
  @Field(() => String, {
    description:
      "Relative path in the bundle: non-empty segments, no '.' or '..', no leading '/', drive letter or backslash, no control, bidirectional or invisible formatting characters, also once percent-decoded.",
  })
  @IsBundlePath()
  path: string;

  @Field(() => String, { description: 'The file content, base64.' })
  @IsBase64()
  content_base64: string;
}

@ApiInput('DatasetFileInput', { description: 'One file of a dataset version, optionally in a split.' })
export class DatasetFileInput extends CapabilityFileInput {
  @Field(() => String, { nullable: true, description: 'The split the file belongs to (`train`, `test`, …): letters, digits, `-`, `_` and `.`, 1 to 64 characters; none when absent.' })
  @Matches(DATASET_SPLIT_PATTERN, { message: `split ${SPLIT_MESSAGE}` })
  split?: string | null;
}

@ApiInput('PublishDatasetRequest', { description: 'A dataset version to publish: its metadata and, optionally, its files.' })
export class PublishDatasetRequest {
  @Field(() => String, { description: NAME_DESCRIPTION })
  @MinLength(1)
  @MaxLength(100)
  @Matches(CATALOG_NAME_PATTERN, { message: `name ${NAME_MESSAGE}` })
  @NotReservedName()
  name: string;

  @Field(() => String, { description: 'Semantic version, e.g. 1.2.3 or 1.2.3-rc.1.' })
  @IsSemver()
  version: string;

  @Field(() => Boolean, { nullable: true, description: 'Visibility of the name (every version); unchanged when absent (private for a new name).' })
  is_public?: boolean | null;

  @Field(() => String, { nullable: true, description: `Default ${DEFAULT_DATASET_FORMAT}.` })
  @MinLength(1)
  @MaxLength(50)
  format?: string | null;

  @Field(() => String, { nullable: true, description: 'A display name, at most 255 characters.' })
  @MaxLength(255)
  pretty_name?: string | null;

  @Field(() => String, { nullable: true, description: 'A summary, at most 10,000 characters.' })
  @MaxLength(10_000)
  summary?: string | null;

  @Field(() => String, { nullable: true, description: 'The license, at most 100 characters.' })
  @MaxLength(100)
  license?: string | null;

  @Field(() => String, { nullable: true, description: 'A size bucket, at most 100 characters.' })
  @MaxLength(100)
  size_category?: string | null;

  @Field(() => [String], { nullable: true, description: 'Languages of the data (at most 100, each at most 100 characters).' })
  @ArrayMaxSize(MAX_TAGS)
  @EachMaxLength(MAX_TAG_LENGTH)
  language?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Tags (at most 100, each at most 100 characters).' })
  @ArrayMaxSize(MAX_TAGS)
  @EachMaxLength(MAX_TAG_LENGTH)
  tags?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Task categories the data serves (at most 100, each at most 100 characters).' })
  @ArrayMaxSize(MAX_TAGS)
  @EachMaxLength(MAX_TAG_LENGTH)
  task_categories?: string[] | null;

  @Field(() => Int, { nullable: true, description: 'Number of columns (at least 0).' })
  @Min(0)
  column_count?: number | null;

  @Field(() => TokenCountScalar, { nullable: true, description: 'Number of rows (at least 0).' })
  @Min(0)
  row_count?: number | null;

  @Field(() => TokenCountScalar, { nullable: true, description: 'Size of the data in bytes (at least 0).' })
  @Min(0)
  file_size_bytes?: number | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Where the data comes from (free-form, at most 16 KiB as JSON).' })
  @MaxJsonBytes(MAX_ORIGIN_BYTES)
  origin?: Record<string, unknown> | null;

  @Field(() => [DatasetFileInput], { nullable: true, description: "The version's files (at most 2000, paths unique ignoring case and Unicode normalization), base64, each in an optional split; none for metadata only. Up to 50 MiB over REST." })
  @ArrayMaxSize(MAX_DATASET_FILES)
  @UniquePaths()
  @ValidateNested({ each: true })
  files?: DatasetFileInput[] | null;
}

@ApiInput('DatasetDownloadRequest', { description: 'What to download of a dataset version.' })
export class DatasetDownloadRequest {
  @Field(() => String, { nullable: true, description: "`raw` (default: the files as published) or the dataset's own `format`; anything else is 422." })
  @MinLength(1)
  @MaxLength(50)
  format?: string | null;

  @Field(() => String, { nullable: true, description: "Only the files of this split (one of the version's splits, else 422); every file when absent." })
  @Matches(DATASET_SPLIT_PATTERN, { message: `split ${SPLIT_MESSAGE}` })
  split?: string | null;
}

@ApiInput('PublishCapabilityRequest', { description: 'A capability version to publish: its manifest and files.' })
export class PublishCapabilityRequest {
  @Field(() => String, { description: NAME_DESCRIPTION })
  @MinLength(1)
  @MaxLength(100)
  @Matches(CATALOG_NAME_PATTERN, { message: `name ${NAME_MESSAGE}` })
  @NotReservedName()
  name: string;

  @Field(() => String, { description: 'Semantic version, e.g. 1.2.3 or 1.2.3-rc.1.' })
  @IsSemver()
  version: string;

  @Field(() => String, { nullable: true, description: "The capability's description, at most 10,000 characters." })
  @MaxLength(10_000)
  description?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Visibility of the name (every version); unchanged when absent.' })
  is_public?: boolean | null;

  @Field(() => JSONObjectScalar, {
    description:
      'The capability manifest: `components` [{name, path, type, description?, metadata?}], `secrets` [name or {name, required}, at most 100], and optional author, license, keywords, origin; at most 128 KiB as JSON.',
  })
  @MaxJsonBytes(MAX_MANIFEST_BYTES)
  manifest: Record<string, unknown>;

  @Field(() => [CapabilityFileInput], { description: "The bundle's files (at most 2000, paths unique ignoring case and Unicode normalization)." })
  @ArrayMaxSize(MAX_CAPABILITY_FILES)
  @UniquePaths()
  @ValidateNested({ each: true })
  files: CapabilityFileInput[];
}

@ApiInput('TrajectoryJudgeInput', { description: 'Inline configuration of an outcome judge of kind trajectory.' })
export class TrajectoryJudgeInput {
  @Field(() => TrajectoryJudgeKind, { nullable: true, description: 'Default trajectory.' })
  kind?: TrajectoryJudgeKind | null;

  @Field(() => Int, { nullable: true, description: '1 to 500, default 50.' })
  @Min(1)
  @Max(500)
  max_steps?: number | null;

  @Field(() => String, { description: 'The judge model, 1 to 255 characters.' })
  @MinLength(1)
  @MaxLength(255)
  model: string;

  @Field(() => JSONObjectScalar, { nullable: true, description: `Parameters for the judge model (free-form, ${FREE_FORM_JSON_LIMIT}).` })
  @FreeFormJson()
  model_params?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: `The rubric the judge grades against, 1 to ${MAX_JUDGE_TEXT.toLocaleString('en-US')} characters.` })
  @MinLength(1)
  @MaxLength(MAX_JUDGE_TEXT)
  rubric?: string | null;

  @Field(() => String, { nullable: true, description: `The judge's system prompt, at most ${MAX_JUDGE_TEXT.toLocaleString('en-US')} characters.` })
  @MaxLength(MAX_JUDGE_TEXT)
  system_prompt?: string | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: `Extra task context for the judge (free-form, ${FREE_FORM_JSON_LIMIT}).` })
  @FreeFormJson()
  task_context?: Record<string, unknown> | null;
}

@ApiInput('VerificationInput', { description: "How a task's result is verified." })
export class VerificationInput {
  @Field(() => VerificationMethod, { nullable: true, description: 'The verification method.' })
  method?: VerificationMethod | null;

  @Field(() => String, { nullable: true, description: 'Hash of the expected flag, at most 1000 characters.' })
  @MaxLength(1000)
  hash?: string | null;

  @Field(() => String, { nullable: true, description: 'Alias of hash (older task files).' })
  @MaxLength(1000)
  flag_hash?: string | null;

  @Field(() => String, { nullable: true, description: "Where the agent's submission is read from, at most 1024 characters." })
  @MaxLength(1024)
  path?: string | null;

  @Field(() => String, { nullable: true, description: 'Alias of path (older task files).' })
  @MaxLength(1024)
  submission_path?: string | null;

  @Field(() => String, { nullable: true, description: `The verification script, at most ${MAX_VERIFICATION_SCRIPT.toLocaleString('en-US')} characters; shown only to the task's own organization.` })
  @MaxLength(MAX_VERIFICATION_SCRIPT)
  script?: string | null;

  @Field(() => String, { nullable: true, description: "The flag in clear, at most 1000 characters; shown only to the task's own organization." })
  @MaxLength(1000)
  value?: string | null;

  @Field(() => Int, { nullable: true, description: 'Seconds, default 30.' })
  @Min(1)
  @Max(86_400)
  timeout?: number | null;

  @Field(() => VerificationWhere, { nullable: true, description: 'Default environment; applies to method script only.' })
  where?: VerificationWhere | null;

  @Field(() => TrajectoryJudgeInput, { nullable: true, description: "The outcome judge's configuration." })
  @ValidateNested()
  judge?: TrajectoryJudgeInput | null;
}

@ApiInput('PublishTaskRequest', { description: 'A task version to publish (its metadata and verification).' })
export class PublishTaskRequest {
  @Field(() => String, { description: NAME_DESCRIPTION })
  @MinLength(1)
  @MaxLength(100)
  @Matches(CATALOG_NAME_PATTERN, { message: `name ${NAME_MESSAGE}` })
  @NotReservedName()
  name: string;

  @Field(() => String, { description: 'Semantic version, e.g. 1.2.3 or 1.2.3-rc.1.' })
  @IsSemver()
  version: string;

  @Field(() => Boolean, { nullable: true, description: 'Visibility of the name (every version); unchanged when absent.' })
  is_public?: boolean | null;

  @Field(() => String, { nullable: true, description: "The task's description, at most 10,000 characters." })
  @MaxLength(10_000)
  description?: string | null;

  @Field(() => String, { nullable: true, description: "The task's author, at most 255 characters." })
  @MaxLength(255)
  author?: string | null;

  @Field(() => String, { nullable: true, description: "The task's difficulty, at most 100 characters." })
  @MaxLength(100)
  difficulty?: string | null;

  @Field(() => String, { nullable: true, description: "The task's license, at most 100 characters." })
  @MaxLength(100)
  license?: string | null;

  @Field(() => String, { nullable: true, description: "Digest of the task's OCI image, at most 255 characters." })
  @MaxLength(255)
  oci_digest?: string | null;

  @Field(() => String, { nullable: true, description: 'Where the task comes from, at most 255 characters.' })
  @MaxLength(255)
  source?: string | null;

  @Field(() => [String], { nullable: true, description: 'Tags (at most 100, each at most 100 characters).' })
  @ArrayMaxSize(MAX_TAGS)
  @EachMaxLength(MAX_TAG_LENGTH)
  tags?: string[] | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: `Key → list of port numbers (1 to 65535); ${FREE_FORM_JSON_LIMIT}.` })
  @FreeFormJson()
  ports?: Record<string, unknown> | null;

  @Field(() => VerificationInput, { nullable: true, description: "How the task's result is verified; a task without one is skipped by evaluations." })
  @ValidateNested()
  verification?: VerificationInput | null;

  @Field(() => TokenCountScalar, { nullable: true, description: 'Archive bytes, default 0.' })
  @Min(0)
  file_size?: number | null;

  @Field(() => TaskTemplateStatus, { nullable: true, description: 'Default pending.' })
  template_status?: TaskTemplateStatus | null;

  @Field(() => String, { nullable: true, description: '`docker` or `hosted` (default).' })
  @IsIn(['docker', 'hosted'], { message: "Input should be 'docker' or 'hosted'" })
  sandbox_provider?: string | null;

  @Field(() => String, { nullable: true, description: 'Markdown served by the readme routes.' })
  @MaxLength(200_000)
  readme?: string | null;

  @Field(() => String, { nullable: true, description: 'What the agent is asked to do, served by `GET …/tasks/{name}/instruction`.' })
  @MaxLength(200_000)
  instruction?: string | null;
}

@ApiInput('VisibilityRequest', { description: 'The visibility to set for every version of a name.' })
export class VisibilityRequest {
  @Field(() => Boolean, { description: 'True to make it visible to every organization, false to keep it to its own.' })
  is_public: boolean;
}

@ApiInput('TaskSetRequest', { example: { name: 'web-basics', description: 'Entry-level web tasks', members: ['sql-injection-101', 'path-traversal-basic@1.2.0'], tags: ['web'] }, description: 'A task set: create (POST) or replace (PUT) it whole.' })
export class TaskSetRequest {
  @Field(() => String, { description: NAME_DESCRIPTION })
  @MinLength(1)
  @MaxLength(100)
  @Matches(CATALOG_NAME_PATTERN, { message: `name ${NAME_MESSAGE}` })
  @NotReservedName()
  name: string;

  @Field(() => String, { nullable: true, description: "The task set's description, at most 10,000 characters." })
  @MaxLength(10_000)
  description?: string | null;

  @Field(() => [String], { description: 'Task names of the organization or public ones: `name` (latest) or `name@version`.' })
  @ArrayMaxSize(MAX_TASK_SET_MEMBERS)
  @EachMaxLength(300)
  members: string[];

  @Field(() => Boolean, { nullable: true, description: 'Default false.' })
  is_public?: boolean | null;

  @Field(() => String, { nullable: true, description: 'Where the task set comes from, at most 255 characters.' })
  @MaxLength(255)
  source?: string | null;

  @Field(() => [String], { nullable: true, description: 'Tags (at most 100, each at most 100 characters).' })
  @ArrayMaxSize(MAX_TAGS)
  @EachMaxLength(MAX_TAG_LENGTH)
  tags?: string[] | null;
}

// ---------------------------------------------------------------- lists

@ArgsType()
export class CatalogScopeArgs {
  @Field(() => Boolean, { nullable: true, description: "Add other organizations' public artifacts." })
  include_public?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Only public artifacts, of every organization.' })
  public_only?: boolean | null;
}

@ArgsType()
export class DatasetFilterArgs extends CatalogScopeArgs {
  @Field(() => String, { nullable: true, description: 'Exact name (`name` or `<org>/<name>`).' })
  @MaxLength(300)
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'Case-insensitive match on name and summary.' })
  @MaxLength(200)
  search?: string | null;

  @Field(() => [String], { nullable: true, description: 'Overlap.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  tags?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  license?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Overlap.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  task_categories?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  format?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  size_category?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Only datasets created by the caller.' })
  mine?: boolean | null;
}

/** A page of capabilities or datasets, and of tasks or task sets. */
export const ARTIFACT_PAGE: PageSize = { max: 200, fallback: 50 };
export const TASK_PAGE: PageSize = { max: 100, fallback: 50 };

@ArgsType()
export class DatasetListArgs extends DatasetFilterArgs {
  @Field(() => DatasetSortBy, { nullable: true, description: 'Default created_at.' })
  sort_by?: DatasetSortBy | null;

  @Field(() => CatalogSortDirection, { nullable: true, description: 'Default desc.' })
  sort_dir?: CatalogSortDirection | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(ARTIFACT_PAGE)
  limit?: number | null;
}

/** Dataset activity entries a read returns. */
export const ACTIVITY_PAGE: PageSize = { max: 100, fallback: 50 };

@ArgsType()
export class DatasetActivityArgs {
  @PageSizeArg(ACTIVITY_PAGE, 'Entries to return')
  limit?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 0, description: `Entries to skip, 0 to ${MAX_OFFSET_ROWS} (default 0).` })
  @Min(0)
  @Max(MAX_OFFSET_ROWS)
  offset?: number | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Only this user's activity." })
  user_id?: string | null;

  @Field(() => String, { nullable: true, description: 'Only this dataset: `name` (any owner) or `<owner>/<name>`.' })
  @MaxLength(300)
  dataset_name?: string | null;
}

@ArgsType()
export class CapabilityFilterArgs extends CatalogScopeArgs {
  @Field(() => String, { nullable: true, description: 'Case-insensitive match on name and description.' })
  @MaxLength(200)
  search?: string | null;

  @Field(() => [String], { nullable: true, description: 'Overlap.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  keywords?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Author name; OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  author?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  license?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Only capabilities published by the caller.' })
  mine?: boolean | null;
}

@ArgsType()
export class CapabilityListArgs extends CapabilityFilterArgs {
  @Field(() => CapabilitySortBy, { nullable: true, description: 'Default created_at.' })
  sort_by?: CapabilitySortBy | null;

  @Field(() => CatalogSortDirection, { nullable: true, description: 'Default desc.' })
  sort_dir?: CatalogSortDirection | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(ARTIFACT_PAGE)
  limit?: number | null;
}

@ArgsType()
export class TaskFilterArgs extends CatalogScopeArgs {
  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  difficulty?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  author?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  source?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Overlap.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  tags?: string[] | null;

  @Field(() => String, { nullable: true, description: 'Case-insensitive match on the name.' })
  @MaxLength(200)
  search?: string | null;
}

@ArgsType()
export class TaskListArgs extends TaskFilterArgs {
  @Field(() => TaskSortBy, { nullable: true, description: 'Default created_at.' })
  sort_by?: TaskSortBy | null;

  @Field(() => CatalogSortDirection, { nullable: true, description: 'Default desc.' })
  sort_dir?: CatalogSortDirection | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(TASK_PAGE)
  limit?: number | null;
}

@ArgsType()
export class TaskSetFilterArgs extends CatalogScopeArgs {
  @Field(() => String, { nullable: true, description: 'Case-insensitive match on name and description.' })
  @MaxLength(200)
  search?: string | null;

  @Field(() => [String], { nullable: true, description: 'Overlap.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  tags?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  source?: string[] | null;

  @Field(() => String, { nullable: true, description: 'Only sets with this task name among their members (any version).' })
  @MaxLength(300)
  contains?: string | null;
}

@ArgsType()
export class TaskSetListArgs extends TaskSetFilterArgs {
  @Field(() => TaskSetSortBy, { nullable: true, description: 'Default created_at.' })
  sort_by?: TaskSetSortBy | null;

  @Field(() => CatalogSortDirection, { nullable: true, description: 'Default desc.' })
  sort_dir?: CatalogSortDirection | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(TASK_PAGE)
  limit?: number | null;
}

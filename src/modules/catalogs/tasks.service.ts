import { TaskModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { ConflictError, sqlState, ValidationError, type ValidationItem } from '../../core/errors';
import { rowSelect, type SqlRoot } from '../../core/graphql-sql/sql-fields';
import { requireScope, resolveOrg } from '../../core/tenancy/tenant-scope';
import { checkIndexEntry, textArrayBytes, textBytes } from '../../core/validation/index-entry';
import { plainQuery } from '../../db/hot';
import { TASK_PAGE, type PublishTaskRequest, type TaskFilterArgs, type TaskListArgs, type VerificationInput } from './catalogs.inputs';
import { anyOf, catalogListQuery, facetLists, facetSql, newWhere, overlaps, searchIn, type CatalogWhere, type FacetRow } from './catalogs.sql';
import {
  TaskSortBy,
  TaskTemplateStatus,
  VerificationMethod,
  VerificationWhere,
  TaskSummary,
  type ArtifactReadmeResponse,
  type TaskFacetsResponse,
  type TaskInstructionResponse,
  type TaskVersionList,
} from './catalogs.types';
import {
  checkPathVersion,
  deleteVersion,
  findArtifactRow,
  catalogPage,
  pageAndCount,
  catalogPageRow,
  parseNameRef,
  publishVersion,
  setNameVisibility,
  versionListColumn,
} from './versioned-artifacts';

const WHAT = 'Task';

/** A task row as TaskSummary declares its fields, over `a` read from tasksReadBy (readFrom('tasks')). */
let selected: string | undefined;
export const taskSelect = () => (selected ??= rowSelect(TaskSummary, 'a'));

function taskWhere(orgId: string, args: TaskFilterArgs): CatalogWhere {
  const where = newWhere(orgId, args, true);
  searchIn(where, ['a.name'], args.search);
  anyOf(where, 'difficulty', 'a.difficulty', args.difficulty);
  anyOf(where, 'author', 'a.author', args.author);
  anyOf(where, 'source', 'a.source', args.source);
  overlaps(where, 'tags', 'a.tags', args.tags);
  return where;
}

const SORTS: Record<TaskSortBy, [string, boolean]> = {
  [TaskSortBy.name]: ['a.name', false],
  [TaskSortBy.difficulty]: ['a.difficulty', true],
  [TaskSortBy.source]: ['a.source', true],
  [TaskSortBy.author]: ['a.author', true],
  [TaskSortBy.created_at]: ['a.created_at', false],
  [TaskSortBy.file_size]: ['a.file_size', false],
};

/** The statement parts of a task list page (spec 19): the caller's organization, filters and order. */
function taskListQuery(orgId: string, args: TaskListArgs) {
  const [column, nullable] = SORTS[args.sort_by ?? TaskSortBy.created_at];
  return catalogListQuery('tasks', taskSelect(), taskWhere(orgId, args), { column, nullable, direction: args.sort_dir });
}

/** Spec 19: one entry per name (its latest version) the caller can access. */
export async function listTasks(ctx: AppContext, orgKey: string, args: TaskListArgs) {
  const { page, limit } = catalogPage(args, TASK_PAGE);
  const scope = await resolveOrg(ctx, orgKey);
  const { rows, total } = await pageAndCount<TaskSummary>(ctx, taskListQuery(scope.org.id, args), page, limit);
  return { tasks: rows, total, page, limit };
}

/** The same list as the compiled reply's root (SqlRoot of `tasks`): the checks, the count, then the page's ids. */
export const TASK_LIST_ROOT: SqlRoot = {
  async from(ctx, args, params, as) {
    const { page, limit } = catalogPage(args, TASK_PAGE);
    const scope = await resolveOrg(ctx, String(args.org));
    return catalogPageRow(taskListQuery(scope.org.id, args as TaskListArgs), params, as, page, limit);
  },
};

/** The task facets statement (spec 20), exported so the benchmark times the same SQL. */
export function taskFacetQuery(orgId: string, args: TaskFilterArgs): { sql: string; bind: Record<string, unknown> } {
  const where = taskWhere(orgId, args);
  const sql = facetSql('tasks', ['id', 'name', 'author', 'difficulty', 'source', 'tags'], where, [
    { name: 'authors', value: 'a.author', filter: 'author' },
    { name: 'difficulties', value: 'a.difficulty', filter: 'difficulty' },
    { name: 'sources', value: 'a.source', filter: 'source' },
    { name: 'tags', value: 'a.tags', array: true, filter: 'tags' },
  ], [
    `SELECT 'scope_org', NULL, count(*) FROM tasks s WHERE s.organization_id = $org_id AND s.is_latest`,
    `SELECT 'scope_public', NULL, count(*) FROM tasks s WHERE s.is_public AND s.is_latest`,
  ]);
  return { sql, bind: where.bind };
}

/** Spec 20: each dimension with the other filters applied and its own excluded; one statement. */
export async function taskFacets(ctx: AppContext, orgKey: string, args: TaskFilterArgs): Promise<TaskFacetsResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const query = taskFacetQuery(scope.org.id, args);
  const { lists, numbers } = facetLists(await plainQuery<FacetRow>(query.sql, query.bind));
  const values = (dim: string) => (lists.get(dim) ?? []).map((entry) => entry.value);
  return {
    authors: values('authors'),
    difficulties: values('difficulties'),
    sources: values('sources'),
    tags: values('tags'),
    filtered_total: numbers.get('filtered_total') ?? 0,
    total: numbers.get('total') ?? 0,
    scope_counts: { org: numbers.get('scope_org') ?? 0, public: numbers.get('scope_public') ?? 0, mine: null },
  };
}

export async function getTask(ctx: AppContext, orgKey: string, name: string, version: string | null): Promise<TaskSummary> {
  if (version !== null) checkPathVersion(version);
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  return findArtifactRow<TaskSummary>('tasks', taskSelect(), scope, ref, version, WHAT);
}

export async function taskVersions(ctx: AppContext, orgKey: string, name: string): Promise<TaskVersionList> {
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  const { version_list: versions, ...latest } = await findArtifactRow<TaskSummary & { version_list: string[] }>(
    'tasks',
    `${taskSelect()}, ${versionListColumn('tasks')}`,
    scope,
    ref,
    null,
    WHAT,
  );
  return { name: latest.name, versions, latest };
}

/** The latest version's instruction (`name`, or `owner/name` for another organization's public task). */
export async function taskInstruction(ctx: AppContext, orgKey: string, name: string): Promise<TaskInstructionResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  return findArtifactRow<TaskInstructionResponse>('tasks', 'a.name, a.version, a.instruction', scope, ref, null, WHAT);
}

export async function taskReadme(ctx: AppContext, orgKey: string, name: string, version: string | null): Promise<ArtifactReadmeResponse> {
  if (version !== null) checkPathVersion(version);
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  const row = await findArtifactRow<{ name: string; version: string; readme: string | null }>('tasks', 'a.name, a.version, a.readme', scope, ref, version, WHAT);
  return { name: row.name, version: row.version, content: row.readme };
}

const FLAG_METHODS = [VerificationMethod.flag, VerificationMethod.flag_and_judge];
const SCRIPT_METHODS = [VerificationMethod.script, VerificationMethod.script_and_judge];
const JUDGE_METHODS = [VerificationMethod.outcome_judge, VerificationMethod.script_and_judge, VerificationMethod.flag_and_judge];

/**
 * The stored verification: aliases folded (`flag_hash` → hash,
 * `submission_path` → path), defaults filled, and what each method needs
 * checked (a flag needs a hash or value, a script a script or path, a judge
 * method a judge).
 */
export function normalizeVerification(input: VerificationInput, errors: ValidationItem[]): Record<string, unknown> {
  const loc = ['input', 'verification'];
  if (input.hash && input.flag_hash && input.hash !== input.flag_hash) {
    errors.push({ loc: [...loc, 'flag_hash'], msg: 'flag_hash is an alias of hash; they differ', type: 'value_error' });
  }
  if (input.path && input.submission_path && input.path !== input.submission_path) {
    errors.push({ loc: [...loc, 'submission_path'], msg: 'submission_path is an alias of path; they differ', type: 'value_error' });
  }
  const hash = input.hash ?? input.flag_hash ?? null;
  const path = input.path ?? input.submission_path ?? null;
  const method = input.method ?? null;
  if (method && FLAG_METHODS.includes(method) && !hash && !input.value) {
    errors.push({ loc: [...loc, 'hash'], msg: `method ${method} needs a hash (flag_hash) or a value`, type: 'missing' });
  }
  if (method && SCRIPT_METHODS.includes(method) && !input.script && !path) {
    errors.push({ loc: [...loc, 'script'], msg: `method ${method} needs a script or a path`, type: 'missing' });
  }
  if (method && JUDGE_METHODS.includes(method) && !input.judge) {
    errors.push({ loc: [...loc, 'judge'], msg: `method ${method} needs a judge`, type: 'missing' });
  }
  const judge = input.judge;
  return {
    method,
    hash,
    path,
    script: input.script ?? null,
    value: input.value ?? null,
    timeout: input.timeout ?? 30,
    where: input.where ?? VerificationWhere.environment,
    judge: judge
      ? {
          kind: judge.kind ?? 'trajectory',
          max_steps: judge.max_steps ?? 50,
          model: judge.model,
          model_params: judge.model_params ?? {},
          rubric: judge.rubric ?? null,
          system_prompt: judge.system_prompt ?? null,
          task_context: judge.task_context ?? {},
        }
      : null,
  };
}

function checkPorts(ports: Record<string, unknown>, errors: ValidationItem[]): Record<string, number[]> {
  for (const [key, value] of Object.entries(ports)) {
    const valid = Array.isArray(value) && value.length <= 100 && value.every((port) => Number.isInteger(port) && port >= 1 && port <= 65535);
    if (!valid) errors.push({ loc: ['input', 'ports', key], msg: 'Input should be a list of port numbers (1 to 65535)', type: 'list_type' });
  }
  return ports as Record<string, number[]>;
}

export async function publishTask(ctx: AppContext, orgKey: string, input: PublishTaskRequest): Promise<TaskSummary> {
  const errors: ValidationItem[] = [];
  const verification = input.verification ? normalizeVerification(input.verification, errors) : null;
  const ports = input.ports ? checkPorts(input.ports, errors) : null;
  if (errors.length) throw new ValidationError(errors); // 422 before the tenant lookup
  // The list indexes carry these in each entry (migration 0020, tasks_latest_idx).
  checkIndexEntry(
    textBytes(input.name) + textBytes(input.author) + textBytes(input.difficulty) + textBytes(input.source) + textArrayBytes(input.tags),
    'Name, author, difficulty, source and tags',
    ['body', 'tags'],
  );
  const scope = await resolveOrg(ctx, orgKey);
  requireScope(scope, 'catalog:publish');
  await publishVersion('tasks', WHAT, scope, input.name, input.version, input.is_public, async (values, transaction) => {
    await TaskModel.create(
      {
        organization_id: scope.org.id,
        name: input.name,
        version: input.version,
        version_key: values.version_key,
        is_public: values.is_public,
        description: input.description ?? null,
        author: input.author ?? null,
        difficulty: input.difficulty ?? null,
        license: input.license ?? null,
        oci_digest: input.oci_digest ?? null,
        source: input.source ?? null,
        tags: input.tags ?? null,
        ports,
        verification,
        file_size: input.file_size ?? 0,
        template_status: input.template_status ?? TaskTemplateStatus.pending,
        sandbox_provider: input.sandbox_provider ?? 'hosted',
        readme: input.readme ?? null,
        instruction: input.instruction ?? null,
        created_by: scope.viewer.user.id,
      },
      { transaction },
    );
  });
  return findArtifactRow<TaskSummary>('tasks', taskSelect(), scope, { owner: scope.org.key, name: input.name, own: true }, input.version, WHAT);
}

export async function setTaskVisibility(ctx: AppContext, orgKey: string, name: string, isPublic: boolean): Promise<TaskSummary> {
  const { scope, ref } = await setNameVisibility(ctx, orgKey, 'tasks', WHAT, name, isPublic);
  return findArtifactRow<TaskSummary>('tasks', taskSelect(), scope, ref, null, WHAT);
}

export async function deleteTask(ctx: AppContext, orgKey: string, name: string, version: string) {
  try {
    return (await deleteVersion(ctx, orgKey, 'tasks', WHAT, name, version)).deleted;
  } catch (error) {
    // evaluation_items.task_id references the version (foreign key of migration 0040, decisions 13).
    if (sqlState(error) === '23503') throw new ConflictError(`Task '${name}' version ${version} is referenced by an evaluation item and cannot be deleted`);
    throw error;
  }
}

import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { AppContext } from '../../core/context';
import { AppError, ConflictError, InvalidError, NotFoundError, ValidationError, validationFailure, type ValidationItem } from '../../core/errors';
import { readPage } from '../../core/pagination';
import { can, requireScope, resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { idRange } from '../../core/id-prefix';
import { plainQuery } from '../../db/hot';
import { parseMember, TASK_SET_SELECT, type MemberRef } from '../catalogs/task-sets.service';
import { parseNameRef } from '../catalogs/versioned-artifacts';
import { effectiveSandboxCeiling } from '../organizations/organization-limits';
import { resolveProject } from '../projects/projects.service';
import { requireOwnSecrets } from '../secrets/secrets.service';
import { EVALUATION_PAGE, ITEM_PAGE, type CreateEvaluationRequest, type EvaluationItemListArgs, type EvaluationItemTransitionRequest, type EvaluationListArgs } from './evaluations.inputs';
import { IN_FLIGHT_STATES, listedJobSql, TERMINAL_STATES, type EvaluationItemRow, type EvaluationRow } from './evaluations.mapper';
import { EvaluationKind, EvaluationCleanupPolicy, EvaluationSummaryStatus, ITEM_STATES, SkippedMemberReason, type EvaluationSkippedMember, type EvaluationSummaryResponse, type ItemState } from './evaluations.types';

/**
 * Evaluations (decisions 7, 12, 13). Every write to a job (item transition,
 * cancel, retry) runs in one transaction that locks the job row first
 * (`FOR UPDATE`), then the item: writes to one job are serialised, the
 * counter columns change with the item in the same transaction (they always
 * equal a recount), and two writers never take locks in opposite orders.
 */

/** The error type of an unknown `task_set` (spec). */
export class TaskSetNotFoundError extends AppError {
  constructor() {
    super(404, 'task_set_not_found', 'Task set not found');
  }
}

const q = (sql: string, bind: Record<string, unknown>, transaction?: Transaction) =>
  plainQuery<Record<string, unknown>>(sql, bind, { transaction });

// ---------------------------------------------------------------- create

interface Wanted extends MemberRef {
  /** As the caller wrote it, without the version (for skipped_members). */
  label: string;
}

interface ResolvedRow {
  ord: string;
  id: string | null;
  name: string | null;
  version: string | null;
  has_verification: boolean | null;
}

/**
 * Every wanted task in ONE statement, whatever their number: the
 * organization's own task first, then a public one; a pinned version or the
 * latest. Another organization's private task is not found.
 */
const RESOLVE_SQL = `
  SELECT k.ord, t.id, t.name, t.version, t.has_verification
    FROM unnest($owners::text[], $names::text[], $versions::text[]) WITH ORDINALITY k(owner, name, version, ord)
    LEFT JOIN LATERAL (
      SELECT a.id, a.name, a.version, (a.verification IS NOT NULL AND jsonb_typeof(a.verification) = 'object') AS has_verification
        FROM tasks a JOIN organizations o ON o.id = a.organization_id
       WHERE a.name = k.name AND (k.owner = '' OR o.key = k.owner)
         AND (a.organization_id = $org_id OR a.is_public)
         AND (CASE WHEN k.version = '' THEN a.is_latest ELSE a.version = k.version END)
       ORDER BY (a.organization_id = $org_id) DESC, a.version_key DESC, a.id
       LIMIT 1) t ON TRUE
   ORDER BY k.ord`;

const INSERT_JOB_SQL = `
  INSERT INTO evaluations (id, organization_id, workspace_id, project_id, name, kind, model, agent_type, capability, engine,
    sandbox_provider, cleanup_policy, job_status, runtime_id, created_by, created_by_email, dataset_ref, config_json,
    dataset_size, requested_concurrency, effective_concurrency, task_timeout_sec, skipped_members, task_set_ref, task_set_id, queued)
  VALUES ($id, $organization_id, $workspace_id, $project_id, $name, $kind, $model, $agent_type, $capability, $engine,
    $sandbox_provider, $cleanup_policy, 'queued', $runtime_id, $created_by, $created_by_email, $dataset_ref::jsonb, $config_json::jsonb,
    $dataset_size, $requested_concurrency, $effective_concurrency, $task_timeout_sec, $skipped_members::jsonb, $task_set_ref::jsonb, $task_set_id, $dataset_size)
  RETURNING *`;

/** Every item in ONE statement, whatever their number. */
const INSERT_ITEMS_SQL = `
  INSERT INTO evaluation_items (evaluation_id, organization_id, workspace_id, position, task_id, task_name, task_version, dataset_row)
  SELECT $evaluation_id, $organization_id, $workspace_id, x.position, x.task_id, x.task_name, x.task_version, x.dataset_row
    FROM jsonb_to_recordset($items::jsonb) AS x(position integer, task_id uuid, task_name text, task_version text, dataset_row jsonb)`;

function parseTaskNames(names: string[]): Wanted[] {
  const errors: ValidationItem[] = [];
  const wanted = names.map((raw, index) => {
    const ref = parseMember(raw);
    if (!ref) errors.push({ loc: ['input', 'task_names', index], msg: 'must be a task name: name or name@version (semver), optionally owner/name', type: 'value_error' });
    return ref ? { ...ref, label: ref.owner ? `${ref.owner}/${ref.name}` : ref.name } : null;
  });
  if (errors.length) throw new ValidationError(errors);
  return wanted as Wanted[];
}

interface TaskSetHit {
  id: string;
  name: string;
  org_key: string;
  members: string[];
}

/** `task_set`: the organization's set, or `owner/name` for another organization's public one; else 404 task_set_not_found. */
async function findTaskSet(scope: WorkspaceScope, raw: string): Promise<TaskSetHit> {
  let ref;
  try {
    ref = parseNameRef(scope, raw, 'Task set');
  } catch {
    throw new TaskSetNotFoundError();
  }
  const [row] = await q(
    `SELECT ${TASK_SET_SELECT} FROM task_sets a JOIN organizations o ON o.id = a.organization_id
      WHERE o.key = $owner AND a.name = $name AND (a.organization_id = $org_id OR a.is_public)`,
    { org_id: scope.org.id, owner: ref.owner, name: ref.name },
  );
  if (!row) throw new TaskSetNotFoundError();
  return row as unknown as TaskSetHit;
}

/**
 * The members of a task set as wanted tasks. A bare member of another
 * organization's (public) set names a task of the set's owner, not one of the
 * caller's organization: it resolves there (its public tasks only) and
 * nowhere else.
 */
function setMembers(taskSet: TaskSetHit, callerOrgKey: string): Wanted[] {
  const foreign = taskSet.org_key !== callerOrgKey;
  return taskSet.members.map((raw) => {
    const ref = parseMember(raw);
    // A member that no longer parses cannot resolve: kept so it is reported as not_found.
    if (!ref) return { owner: null, name: raw, version: null, label: raw };
    const owner = ref.owner ?? (foreign ? taskSet.org_key : null);
    return { ...ref, owner, label: ref.owner ? `${ref.owner}/${ref.name}` : ref.name };
  });
}

export async function createEvaluation(ctx: AppContext, org: string, ws: string, input: CreateEvaluationRequest): Promise<EvaluationRow> {
  const named = parseTaskNames(input.task_names ?? []); // 422 before the tenant lookup
  const access = await resolveWorkspace(ctx, org, ws);
  const ceiling = effectiveSandboxCeiling(access.org);
  if (input.task_timeout_sec != null && input.task_timeout_sec > ceiling) {
    throw validationFailure(['input', 'task_timeout_sec'], `Input should be less than or equal to ${ceiling} (the organization's sandbox runtime ceiling)`, 'less_than_equal');
  }
  const project = await resolveProject(access, input.project_id);
  const taskSet = input.task_set ? await findTaskSet(access, input.task_set) : null;
  const secretIds = await requireOwnSecrets(access.viewer.user.id, input.secret_ids ?? []);
  requireScope(access, 'resources:write');

  const wanted = [...named, ...(taskSet ? setMembers(taskSet, access.org.key) : [])];
  const dataset = input.dataset ?? [];
  const concurrency = input.concurrency ?? 1;

  return database().transaction(async (transaction) => {
    const resolved = wanted.length
      ? ((await q(
          RESOLVE_SQL,
          {
            org_id: access.org.id,
            owners: wanted.map((ref) => ref.owner ?? ''),
            names: wanted.map((ref) => ref.name),
            versions: wanted.map((ref) => ref.version ?? ''),
          },
          transaction,
        )) as unknown as ResolvedRow[])
      : [];
    const skipped: EvaluationSkippedMember[] = [];
    const seen = new Set<string>();
    // A member named twice is skipped once, as it would be one item.
    const skippedKeys = new Set<string>();
    const skip = (reason: SkippedMemberReason, ref: (typeof wanted)[number]) => {
      const key = JSON.stringify([reason, ref.label, ref.version]);
      if (skippedKeys.has(key)) return;
      skippedKeys.add(key);
      skipped.push({ reason, task_name: ref.label, task_version: ref.version });
    };
    const items: { position: number; task_id: string | null; task_name: string; task_version: string | null; dataset_row: unknown }[] = [];
    resolved.forEach((row, index) => {
      const ref = wanted[index];
      if (!row.id) skip(SkippedMemberReason.not_found, ref);
      else if (!row.has_verification) skip(SkippedMemberReason.no_verification, ref);
      else if (!seen.has(row.id)) {
        seen.add(row.id);
        items.push({ position: items.length, task_id: row.id, task_name: row.name!, task_version: row.version, dataset_row: null });
      }
    });
    dataset.forEach((datasetRow, index) => {
      items.push({ position: items.length, task_id: null, task_name: `dataset[${index}]`, task_version: null, dataset_row: datasetRow });
    });
    if (!items.length) {
      throw new InvalidError('The evaluation has no items: no task name or task-set member resolved to a task with verification, and no dataset row was given');
    }
    const id = crypto.randomUUID();
    const [job] = (await q(
      INSERT_JOB_SQL,
      {
        id,
        organization_id: access.org.id,
        workspace_id: access.workspace.id,
        project_id: project.id,
        name: input.name,
        kind: input.kind ?? EvaluationKind.security_task_benchmark,
        model: input.model,
        agent_type: input.agent_type ?? null,
        capability: input.capability ?? null,
        engine: input.engine ?? null,
        sandbox_provider: input.sandbox_provider ?? null,
        cleanup_policy: input.cleanup_policy ?? EvaluationCleanupPolicy.always,
        runtime_id: input.runtime_id ?? null,
        created_by: access.viewer.user.id,
        created_by_email: access.viewer.user.email,
        dataset_ref: dataset.length ? JSON.stringify({ rows: dataset.length }) : null,
        config_json: JSON.stringify(runConfiguration(input, concurrency, secretIds)),
        dataset_size: items.length,
        requested_concurrency: concurrency,
        effective_concurrency: Math.min(concurrency, items.length),
        task_timeout_sec: input.task_timeout_sec ?? null,
        skipped_members: JSON.stringify(skipped),
        task_set_ref: taskSet ? JSON.stringify({ id: taskSet.id, name: taskSet.name, org_key: `${taskSet.org_key}/${taskSet.name}` }) : null,
        task_set_id: taskSet?.id ?? null,
      },
      transaction,
    )) as unknown as EvaluationRow[];
    await plainQuery(
      INSERT_ITEMS_SQL,
      { evaluation_id: id, organization_id: access.org.id, workspace_id: access.workspace.id, items: JSON.stringify(items) },
      { transaction },
    );
    return job;
  });
}

/** What the run needs besides its items (task names and dataset rows become items, so they are not repeated here); secrets by id only. */
function runConfiguration(input: CreateEvaluationRequest, concurrency: number, secretIds: string[]): Record<string, unknown> {
  return {
    model: input.model,
    judge_model: input.judge_model ?? null,
    engine: input.engine ?? null,
    agent_type: input.agent_type ?? null,
    capability: input.capability ?? null,
    sandbox_provider: input.sandbox_provider ?? null,
    concurrency,
    task_timeout_sec: input.task_timeout_sec ?? null,
    cleanup_policy: input.cleanup_policy ?? EvaluationCleanupPolicy.always,
    model_overrides: input.model_overrides ?? {},
    secret_ids: secretIds,
    task_config: input.task_config ?? {},
    task_set: input.task_set ?? null,
    runtime_id: input.runtime_id ?? null,
  };
}

// ---------------------------------------------------------------- reads

/** The shortest evaluation id prefix a path may use (the platform's docs promise 8). */
export const MIN_EVALUATION_PREFIX = 8;

/**
 * An evaluation reference in a path: a full id (any case) as it is, or a
 * prefix of at least 8 characters resolved to the one evaluation of the
 * workspace it names (none 404, several 409; shorter 422 at `path.id`).
 */
async function evaluationIdOf(scope: WorkspaceScope, ref: string): Promise<string> {
  const range = idRange(ref);
  if (range && range[0] === range[1]) return range[0];
  if (ref.length < MIN_EVALUATION_PREFIX) throw validationFailure(['id'], `String should have at least ${MIN_EVALUATION_PREFIX} characters`, 'string_too_short');
  if (!range) throw new NotFoundError('Evaluation');
  const rows = await q(`SELECT e.id FROM evaluations e WHERE e.workspace_id = $ws AND e.id BETWEEN $from::uuid AND $to::uuid ORDER BY e.id LIMIT 2`, {
    ws: scope.workspace.id,
    from: range[0],
    to: range[1],
  });
  if (!rows.length) throw new NotFoundError('Evaluation');
  if (rows.length > 1) throw new ConflictError(`Evaluation id prefix '${ref}' matches more than one evaluation; use more characters`);
  return String(rows[0].id);
}

async function findJob(scope: WorkspaceScope, id: string, transaction?: Transaction, lock = false): Promise<EvaluationRow> {
  const [row] = await q(`SELECT e.* FROM evaluations e WHERE e.id = $id AND e.workspace_id = $ws${lock ? ' FOR UPDATE' : ''}`, { id, ws: scope.workspace.id }, transaction);
  if (!row) throw new NotFoundError('Evaluation');
  return row as unknown as EvaluationRow;
}

export async function getEvaluation(ctx: AppContext, org: string, ws: string, id: string): Promise<EvaluationRow> {
  const scope = await resolveWorkspace(ctx, org, ws);
  return findJob(scope, await evaluationIdOf(scope, id));
}

export async function getAnalytics(ctx: AppContext, org: string, ws: string, id: string): Promise<EvaluationRow> {
  const job = await getEvaluation(ctx, org, ws, id);
  if (!job.analytics) throw new NotFoundError('Evaluation analytics');
  return job;
}

export async function listEvaluations(ctx: AppContext, org: string, ws: string, args: EvaluationListArgs) {
  const page = args.page ?? 1;
  const pageSize = args.page_size ?? EVALUATION_PAGE.fallback;
  const access = await resolveWorkspace(ctx, org, ws);
  const bind: Record<string, unknown> = { ws: access.workspace.id };
  const filters = ['e.workspace_id = $ws'];
  if (args.project_id) {
    // A project outside the workspace is 404, as every list's project filter is.
    bind.project_id = (await resolveProject(access, args.project_id)).id;
    filters.push('e.project_id = $project_id');
  }
  if (args.status) {
    bind.status = args.status;
    filters.push('e.job_status = $status');
  }
  const where = filters.join(' AND ');
  const { rows, total } = await readPage(
    page,
    pageSize,
    async () => Number((await q(`SELECT count(*) AS total FROM evaluations e WHERE ${where}`, bind))[0]?.total ?? 0),
    // The page's ids first, so only its rows have their skipped members cut (listedJobSql).
    () =>
      q(`SELECT c.* FROM (SELECT e.id FROM evaluations e WHERE ${where} ORDER BY e.created_at DESC, e.id DESC LIMIT $limit OFFSET $offset) page
           JOIN evaluations e ON e.id = page.id CROSS JOIN LATERAL ${listedJobSql('e')} c
          ORDER BY e.created_at DESC, e.id DESC`, { ...bind, limit: pageSize, offset: (page - 1) * pageSize }),
  );
  return { rows: rows as unknown as EvaluationRow[], total, page, page_size: pageSize };
}

export async function listItems(ctx: AppContext, org: string, ws: string, id: string, args: EvaluationItemListArgs): Promise<EvaluationItemRow[]> {
  const limit = args.limit ?? ITEM_PAGE.fallback;
  // A job holds at most MAX_EVALUATION_ITEMS items (evaluations.inputs.ts): a deep page scans at most those.
  const page = args.page ?? 1;
  const access = await resolveWorkspace(ctx, org, ws);
  id = await evaluationIdOf(access, id);
  await findJob(access, id);
  const rows = await q(
    `SELECT i.* FROM evaluation_items i WHERE i.evaluation_id = $id ${args.status ? 'AND i.status = $status' : ''}
      ORDER BY i.position LIMIT $limit OFFSET $offset`,
    { id, status: args.status ?? null, limit, offset: (page - 1) * limit },
  );
  return rows as unknown as EvaluationItemRow[];
}

async function findItem(evaluationId: string, itemId: string, transaction?: Transaction, lock = false): Promise<EvaluationItemRow> {
  const [row] = await q(
    `SELECT i.* FROM evaluation_items i WHERE i.id = $item_id AND i.evaluation_id = $id${lock ? ' FOR UPDATE' : ''}`,
    { id: evaluationId, item_id: itemId },
    transaction,
  );
  if (!row) throw new NotFoundError('Evaluation item');
  return row as unknown as EvaluationItemRow;
}

export async function getItem(ctx: AppContext, org: string, ws: string, id: string, itemId: string): Promise<EvaluationItemRow> {
  const access = await resolveWorkspace(ctx, org, ws);
  id = await evaluationIdOf(access, id);
  await findJob(access, id);
  return findItem(id, itemId);
}

// ---------------------------------------------------------------- state machine

/** The pipeline; errored, infra_error, timed_out and cancelled are reachable from any non-terminal state. */
const NEXT: Partial<Record<ItemState, readonly ItemState[]>> = {
  queued: ['claiming'],
  claiming: ['provisioning'],
  provisioning: ['agent_running'],
  agent_running: ['agent_finished'],
  agent_finished: ['verifying'],
  verifying: ['passed', 'failed'],
};
const ABORTS: readonly ItemState[] = ['errored', 'infra_error', 'timed_out', 'cancelled'];

export function canMove(from: ItemState, to: ItemState): boolean {
  if (TERMINAL_STATES.includes(from)) return false;
  return ABORTS.includes(to) || (NEXT[from]?.includes(to) ?? false);
}

const sum = (row: Record<ItemState, number>, states: readonly ItemState[]) => states.reduce((total, state) => total + Number(row[state]), 0);

/** The analytics of a job whose items are all terminal (decisions 7: pass_rate = passed / terminal). */
function analyticsOf(job: EvaluationRow, completedAt: Date): EvaluationSummaryResponse {
  const terminal = sum(job, TERMINAL_STATES);
  const start = job.started_at ?? job.queued_at;
  return {
    dataset_size: job.dataset_size,
    duration_ms: Math.max(0, completedAt.getTime() - new Date(start).getTime()),
    error_count: sum(job, ['errored', 'infra_error', 'timed_out']),
    failed_count: Number(job.failed),
    iterations: job.retry_rounds + 1,
    mean_scores: {},
    name: job.name,
    params: job.config_json ?? {},
    pass_rate: terminal ? Number(job.passed) / terminal : null,
    passed_count: Number(job.passed),
    scenario_count: job.dataset_size,
    span_id: '',
    status: EvaluationSummaryStatus.completed,
    stop_reason: null,
    tags: [],
    task_id: null,
    timestamp: completedAt,
    total_samples: terminal,
    trace_id: job.id,
  };
}

/** Once nothing is left to run: cancelled when a cancel was requested, else completed with analytics. */
async function finishIfDone(job: EvaluationRow, transaction: Transaction): Promise<EvaluationRow> {
  if (sum(job, [...IN_FLIGHT_STATES, 'queued']) > 0 || job.job_status === 'completed' || job.job_status === 'cancelled') return job;
  const now = new Date();
  const cancelled = job.cancel_requested_at !== null;
  const [row] = await q(
    `UPDATE evaluations SET job_status = $status, completed_at = $now, analytics = $analytics::jsonb, updated_at = $now WHERE id = $id RETURNING *`,
    { id: job.id, now, status: cancelled ? 'cancelled' : 'completed', analytics: cancelled ? null : JSON.stringify(analyticsOf(job, now)) },
    transaction,
  );
  return row as unknown as EvaluationRow;
}

export async function transitionItem(
  ctx: AppContext,
  org: string,
  ws: string,
  id: string,
  itemId: string,
  input: EvaluationItemTransitionRequest,
): Promise<{ item: EvaluationItemRow; job: EvaluationRow }> {
  const access = await resolveWorkspace(ctx, org, ws);
  id = await evaluationIdOf(access, id);
  const to = input.to as ItemState;
  await refuseWithoutLock(access, id, itemId);
  return database().transaction(async (transaction) => {
    await findJob(access, id, transaction, true);
    const current = await findItem(id, itemId, transaction, true);
    const from = current.status as ItemState;
    if (!canMove(from, to)) throw new ConflictError(`An evaluation item cannot move from ${from} to ${to}`);
    const terminal = TERMINAL_STATES.includes(to);
    const [item] = await q(
      `UPDATE evaluation_items SET status = $to,
         started_at = CASE WHEN started_at IS NULL AND $starts THEN now() ELSE started_at END,
         completed_at = CASE WHEN $terminal THEN now() ELSE NULL END,
         error = coalesce($error, error)
       WHERE id = $item_id RETURNING *`,
      { to, item_id: itemId, starts: !terminal, terminal, error: input.error ?? null },
      transaction,
    );
    // Column names come from the fixed state list, never from the request text.
    const [counted] = await q(
      `UPDATE evaluations SET "${from}" = "${from}" - 1, "${to}" = "${to}" + 1, updated_at = now(),
         job_status = CASE WHEN job_status = 'queued' THEN 'running' ELSE job_status END,
         started_at = coalesce(started_at, now())
       WHERE id = $id RETURNING *`,
      { id },
      transaction,
    );
    const job = await finishIfDone(counted as unknown as EvaluationRow, transaction);
    return { item: item as unknown as EvaluationItemRow, job };
  });
}

/**
 * A caller who may not write gets its 404 or 403 without touching a lock, so a
 * reader never queues behind the workers of a job only to be refused; a
 * writer goes straight to the locked path (which answers 404 itself).
 */
async function refuseWithoutLock(access: WorkspaceScope, id: string, itemId?: string): Promise<void> {
  if (can(access, 'resources:write')) return;
  await findJob(access, id);
  if (itemId) await findItem(id, itemId);
  requireScope(access, 'resources:write');
}

// ---------------------------------------------------------------- cancel and retry

export async function cancelEvaluation(ctx: AppContext, org: string, ws: string, id: string): Promise<EvaluationRow> {
  const access = await resolveWorkspace(ctx, org, ws);
  id = await evaluationIdOf(access, id);
  await refuseWithoutLock(access, id);
  return database().transaction(async (transaction) => {
    const job = await findJob(access, id, transaction, true);
    if (job.job_status === 'completed' || job.job_status === 'cancelled') throw new ConflictError(`The evaluation is already ${job.job_status}`);
    if (job.cancel_requested_at) return job; // asked before; it ends cancelled when its last in-flight item does
    const [row] = await q(
      `WITH moved AS (
         UPDATE evaluation_items SET status = 'cancelled', completed_at = now()
          WHERE evaluation_id = $id AND status = 'queued' RETURNING 1)
       UPDATE evaluations SET cancel_requested_at = now(), updated_at = now(),
         queued = queued - (SELECT count(*) FROM moved), cancelled = cancelled + (SELECT count(*) FROM moved)
        WHERE id = $id RETURNING *`,
      { id },
      transaction,
    );
    return finishIfDone(row as unknown as EvaluationRow, transaction);
  });
}

const RETRYABLE: readonly ItemState[] = ['failed', 'errored', 'infra_error', 'timed_out'];

export async function retryFailed(ctx: AppContext, org: string, ws: string, id: string): Promise<EvaluationRow> {
  const access = await resolveWorkspace(ctx, org, ws);
  id = await evaluationIdOf(access, id);
  await refuseWithoutLock(access, id);
  return database().transaction(async (transaction) => {
    const job = await findJob(access, id, transaction, true);
    if (job.cancel_requested_at) throw new ConflictError('A cancelled evaluation cannot be retried');
    const retried = sum(job, RETRYABLE);
    if (!retried) throw new ConflictError('No item is failed, errored, infra_error or timed_out: nothing to retry');
    await plainQuery(
      `UPDATE evaluation_items SET status = 'queued', attempt = attempt + 1, started_at = NULL, completed_at = NULL, error = NULL
        WHERE evaluation_id = $id AND status = ANY($states::text[])`,
      { id, states: RETRYABLE },
      { transaction },
    );
    const [row] = await q(
      `UPDATE evaluations SET queued = queued + $retried, failed = 0, errored = 0, infra_error = 0, timed_out = 0,
         retry_rounds = retry_rounds + 1, completed_at = NULL, analytics = NULL, updated_at = now(),
         job_status = CASE WHEN job_status = 'completed' THEN 'queued' ELSE job_status END
       WHERE id = $id RETURNING *`,
      { id, retried },
      transaction,
    );
    return row as unknown as EvaluationRow;
  });
}

/** For tests and the benchmark: the counters recounted from the items. */
export async function recountItems(evaluationId: string): Promise<Record<ItemState, number>> {
  const rows = await q(`SELECT status, count(*) AS n FROM evaluation_items WHERE evaluation_id = $id GROUP BY status`, { id: evaluationId });
  const counts = Object.fromEntries(ITEM_STATES.map((state) => [state, 0])) as Record<ItemState, number>;
  for (const row of rows) counts[row.status as ItemState] = Number(row.n);
  return counts;
}

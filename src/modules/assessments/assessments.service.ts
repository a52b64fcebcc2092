import { AssessmentAnalyticsResponse, type AttackSpanResponse } from './assessments.types';
import { fromRow, type SqlListRoot, type SqlRoot } from '../../core/graphql-sql/sql-fields';
import type { Transaction } from 'sequelize';
import { AssessmentModel, SessionModel, type AssessmentStatus, type RecordOf } from '../../../models';
import type { AppContext } from '../../core/context';
import { ConflictError, NotFoundError } from '../../core/errors';
import { readPage } from '../../core/pagination';
import { can, requireScope, resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { compiledShare, rowsWithinReply, withinCompiledShareSql } from '../../core/reply-budget';
import { resolveProject } from '../projects/projects.service';
import { visibleWhere } from '../sessions/session.policy';
import { ASSESSMENT_PAGE, attackWindow, MAX_ATTACK_OFFSET, type AssessmentCreateRequest, type AssessmentListArgs, type AssessmentUpdateRequest, type AttackListArgs, type AttackSpanIngestRequest, type AttackSpanInput } from './assessments.inputs';
import { assessmentBytes, attackBytes, insertSpansSql, spanRowColumns, RECOMPUTE_SQL, TRACE_STATS_SQL } from './assessments.sql';

/**
 * Red-team assessments (spec 11–14, decisions §8 and §13). Every service
 * starts with the tenant (resolveWorkspace), then the resource (404), then
 * the role (requireScope, 403), then the state rules (409).
 */
export const ASSESSMENT_WRITE = 'airt:write' as const;

const FINISHED = new Set<AssessmentStatus>(['completed', 'failed']);

/** The columns of an assessment row, named: a prepared statement's result type must not change when a column is added. */
const ASSESSMENT_COLUMNS = `id, organization_id, workspace_id, project_id, user_id, session_id, name, description, status, runtime_id,
  sandbox_id, attack_manifest, attacker_config, target_config, attacker_model, judge_model, target_model, workflow_run_id,
  workflow_script, sandbox_detail, overall_asr, risk_score, analytics_snapshot, total_attacks, total_trials, attack_seq,
  started_at, completed_at, created_at, updated_at`;

/** The assessment of the workspace as a plain row (one named statement), or 404. */
async function readAssessment(scope: WorkspaceScope, id: string): Promise<RecordOf<AssessmentModel>> {
  const [row] = await plainQuery<RecordOf<AssessmentModel>>(
    `SELECT ${ASSESSMENT_COLUMNS} FROM airt_assessments WHERE id = $id AND workspace_id = $workspace_id`,
    { id, workspace_id: scope.workspace.id },
    { prepare: 'assessment-by-id' },
  );
  if (!row) throw new NotFoundError('Assessment');
  return row;
}

/** The assessment of the workspace, its row locked for the transaction, or 404. */
async function lockAssessment(scope: WorkspaceScope, id: string, transaction: Transaction): Promise<AssessmentModel> {
  const assessment = await AssessmentModel.findOne({ where: { id, workspace_id: scope.workspace.id }, transaction, lock: transaction.LOCK.UPDATE });
  if (!assessment) throw new NotFoundError('Assessment');
  return assessment;
}

/** A session of the workspace that the caller can see (404 otherwise, never disclosing others). */
async function requireVisibleSession(scope: WorkspaceScope, sessionId: string): Promise<void> {
  const session = await SessionModel.findOne({
    attributes: ['id'],
    where: { id: sessionId, workspace_id: scope.workspace.id, ...visibleWhere(scope.viewer.user.id) },
  });
  if (!session) throw new NotFoundError('Session');
}

/** One object is taken as a one-element array. */
function manifestList(value: unknown): Record<string, unknown>[] | null {
  if (value === null || value === undefined) return null;
  return (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
}

export async function createAssessment(
  ctx: AppContext,
  org: string,
  ws: string,
  projectId: string | null | undefined,
  input: AssessmentCreateRequest,
): Promise<AssessmentModel> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const project = await resolveProject(scope, projectId);
  if (input.session_id) await requireVisibleSession(scope, input.session_id);
  requireScope(scope, ASSESSMENT_WRITE);
  const assessment = await AssessmentModel.create({
    organization_id: scope.org.id,
    workspace_id: scope.workspace.id,
    project_id: project.id,
    user_id: scope.viewer.user.id,
    session_id: input.session_id ?? null,
    name: input.name,
    description: input.description ?? null,
    status: 'pending',
    runtime_id: input.runtime_id ?? null,
    attack_manifest: manifestList(input.attack_manifest),
    attacker_config: input.attacker_config ?? null,
    target_config: input.target_config ?? null,
    attacker_model: input.attacker_model ?? null,
    judge_model: input.judge_model ?? null,
    target_model: input.target_model ?? null,
    workflow_run_id: input.workflow_run_id ?? null,
    workflow_script: input.workflow_script ?? null,
  });
  ctx.loaders.projectResourceCounts.clear(project.id);
  return assessment;
}

export async function listAssessments(
  ctx: AppContext,
  org: string,
  ws: string,
  args: AssessmentListArgs,
): Promise<{ items: RecordOf<AssessmentModel>[]; total: number; page: number; page_size: number }> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const page = args.page ?? 1;
  const pageSize = args.page_size ?? ASSESSMENT_PAGE.fallback;
  // A project of another workspace is 404, as for workflow runs (never an empty list that hides the mistake).
  if (args.project_id) await resolveProject(scope, args.project_id);
  const filter = `a.workspace_id = $workspace_id${args.project_id ? ' AND a.project_id = $project_id' : ''}`;
  const bind = { workspace_id: scope.workspace.id, ...(args.project_id ? { project_id: args.project_id } : {}) };
  // Each row may hold some 400 KB (its script, configurations and manifest), read whether asked for or not: within the reply budget.
  const { rows, total } = await readPage(
    page,
    pageSize,
    async () => (await plainQuery<{ total: number }>(`SELECT count(*)::int AS total FROM airt_assessments a WHERE ${filter}`, bind, { prepare: true }))[0].total,
    () =>
      rowsWithinReply<RecordOf<AssessmentModel>>(ctx, {
        rows: `SELECT ${ASSESSMENT_COLUMNS}, ${assessmentBytes('a')} AS size FROM airt_assessments a WHERE ${filter}
                ORDER BY a.created_at DESC, a.id DESC LIMIT $limit OFFSET $offset`,
        order: ['created_at DESC', 'id DESC'],
        bind: { ...bind, limit: pageSize, offset: (page - 1) * pageSize },
        prepare: true,
      }),
  );
  return { items: rows, total, page, page_size: pageSize };
}

export async function getAssessment(ctx: AppContext, org: string, ws: string, id: string): Promise<RecordOf<AssessmentModel>> {
  return readAssessment(await resolveWorkspace(ctx, org, ws), id);
}

/**
 * Status moves: pending → running | completed | failed, running → completed |
 * failed; the same status again changes nothing. Anything else (back from a
 * finished status, or running → pending) is 409.
 */
function checkStatusMove(from: AssessmentStatus, to: AssessmentStatus): void {
  if (from === to) return;
  if (FINISHED.has(from)) throw new ConflictError(`The assessment is ${from}; a finished assessment cannot move to ${to}`);
  if (to === 'pending') throw new ConflictError('A running assessment cannot go back to pending');
}

export async function updateAssessment(ctx: AppContext, org: string, ws: string, id: string, input: AssessmentUpdateRequest): Promise<AssessmentModel> {
  const scope = await resolveWorkspace(ctx, org, ws);
  await readAssessment(scope, id);
  requireScope(scope, ASSESSMENT_WRITE);
  return database().transaction(async (transaction) => {
    const assessment = await lockAssessment(scope, id, transaction);
    const now = new Date();
    if (input.status) {
      const to = input.status as AssessmentStatus;
      checkStatusMove(assessment.status, to);
      if (to !== assessment.status) {
        assessment.status = to;
        if (to === 'running') assessment.started_at ??= now;
        if (FINISHED.has(to)) {
          assessment.started_at ??= now;
          assessment.completed_at = now;
        }
      }
    }
    if (input.name) assessment.name = input.name;
    if (input.description !== undefined) assessment.description = input.description;
    if (input.sandbox_detail !== undefined) {
      assessment.sandbox_detail = input.sandbox_detail
        ? {
            provider: input.sandbox_detail.provider,
            provider_sandbox_id: input.sandbox_detail.provider_sandbox_id,
            state: input.sandbox_detail.state,
            total_runtime_seconds: input.sandbox_detail.total_runtime_seconds ?? null,
          }
        : null;
    }
    assessment.changed('updated_at', true);
    return assessment.save({ transaction });
  });
}

export async function deleteAssessment(ctx: AppContext, org: string, ws: string, id: string): Promise<{ id: string; deleted: true }> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const assessment = await readAssessment(scope, id);
  requireScope(scope, ASSESSMENT_WRITE);
  // The spans go with it (ON DELETE CASCADE).
  await AssessmentModel.destroy({ where: { id: assessment.id, workspace_id: scope.workspace.id } });
  ctx.loaders.projectResourceCounts.clear(assessment.project_id);
  return { id: assessment.id, deleted: true };
}

/** A record with the spec defaults applied, in the column order of the ingest statement. */
function normalise(attack: AttackSpanInput): Record<string, unknown> {
  return {
    attack_name: attack.attack_name,
    goal: attack.goal,
    goal_category: attack.goal_category,
    asr: attack.asr ?? 0,
    attacker_model: attack.attacker_model ?? '',
    target_model: attack.target_model ?? '',
    evaluator_model: attack.evaluator_model ?? '',
    best_candidate: attack.best_candidate ?? '',
    best_candidate_parts: attack.best_candidate_parts ?? null,
    best_response: attack.best_response ?? '',
    best_response_parts: attack.best_response_parts ?? null,
    best_modality_scores: attack.best_modality_scores ?? null,
    best_score: attack.best_score ?? 0,
    category: attack.category ?? '',
    sub_category: attack.sub_category ?? '',
    execution_time_s: attack.execution_time_s ?? 0,
    finished_trials: attack.finished_trials ?? 0,
    total_trials: attack.total_trials ?? 0,
    is_jailbreak: attack.is_jailbreak ?? false,
    span_id: attack.span_id ?? '',
    trace_id: attack.trace_id ?? '',
    transforms: attack.transforms ?? [],
  };
}

/**
 * Ingests a batch of attack spans in one transaction and a fixed number of
 * statements whatever the batch size: lock the assessment row, one INSERT …
 * SELECT over the batch as jsonb, one UPDATE … FROM aggregate recomputing
 * overall_asr, risk_score and analytics_snapshot from every span. The row
 * lock serialises concurrent ingests into one assessment; a failure rolls
 * the whole batch back.
 */
export async function ingestAttacks(
  ctx: AppContext,
  org: string,
  ws: string,
  id: string,
  input: AttackSpanIngestRequest,
): Promise<{ ingested: number; assessment: RecordOf<AssessmentModel> }> {
  const scope = await resolveWorkspace(ctx, org, ws);
  // A caller who may not write gets 404 or 403 without the row lock (no queueing behind running ingests);
  // a writer goes straight to the locked read, which answers 404 itself.
  if (!can(scope, ASSESSMENT_WRITE)) {
    await readAssessment(scope, id);
    requireScope(scope, ASSESSMENT_WRITE);
  }
  return database().transaction(async (transaction) => {
    const assessment = await lockAssessment(scope, id, transaction);
    if (FINISHED.has(assessment.status)) throw new ConflictError(`The assessment is ${assessment.status} and accepts no more attack spans`);
    const base = assessment.attack_seq;
    await plainQuery(
      insertSpansSql(),
      {
        assessment_id: assessment.id,
        base_seq: base,
        organization_id: assessment.organization_id,
        workspace_id: assessment.workspace_id,
        attacks: JSON.stringify(input.attacks.map(normalise)),
      },
      { transaction },
    );
    const [row] = await plainQuery<RecordOf<AssessmentModel>>(
      RECOMPUTE_SQL,
      { assessment_id: assessment.id, last_seq: base + input.attacks.length },
      { transaction },
    );
    return { ingested: input.attacks.length, assessment: row };
  });
}

export async function listAttacks(ctx: AppContext, org: string, ws: string, id: string, args: AttackListArgs) {
  const window = attackWindow(args);
  const scope = await resolveWorkspace(ctx, org, ws);
  const assessment = await readAssessment(scope, id);
  describeWindow(ctx, assessment, window);
  // Up to 10,000 spans of up to ~1 MiB each: read within the request's reply budget.
  return rowsWithinReply<AttackSpanResponse>(ctx, {
    rows: `SELECT s.*, ${attackBytes('s')} AS size FROM airt_attack_spans s WHERE s.assessment_id = $assessment_id ORDER BY s.seq LIMIT $limit OFFSET $offset`,
    order: ['seq'],
    select: spanRowColumns('y'),
    bind: { assessment_id: assessment.id, limit: window.limit, offset: window.offset },
  });
}

/**
 * A REST attack list is one window of the spans (a bare array, spec 14):
 * `X-Total-Count` says how many the assessment holds and `Link: rel="next"`
 * points at the next window while there is one that `offset` can reach.
 */
function describeWindow(ctx: AppContext, assessment: RecordOf<AssessmentModel>, window: { limit: number; offset: number }): void {
  if (!ctx.rest) return;
  ctx.response.headers['X-Total-Count'] = String(assessment.total_attacks);
  const next = window.offset + window.limit;
  if (next < assessment.total_attacks && next <= MAX_ATTACK_OFFSET) ctx.response.headers.Link = `<${ctx.rest.path}?limit=${window.limit}&offset=${next}>; rel="next"`;
}

/**
 * The same list as the compiled reply's root (SqlListRoot of
 * `assessment_attacks`): the tenant check and the assessment's lookup (404),
 * the window's headers, then its spans in ingest order.
 */
export const ATTACK_LIST_ROOT: SqlListRoot = {
  async rows(ctx, args, params, as) {
    const window = attackWindow(args as AttackListArgs);
    const scope = await resolveWorkspace(ctx, String(args.org), String(args.workspace));
    const assessment = await readAssessment(scope, String(args.assessment_id));
    describeWindow(ctx, assessment, window);
    const where = `WHERE ${as}.assessment_id = ${params.add(assessment.id)} ORDER BY ${as}.seq LIMIT ${params.add(window.limit)} OFFSET ${params.add(window.offset)}`;
    params.named(compiledShare());
    return {
      select: `SELECT ${as}.* FROM airt_attack_spans ${as} ${where}`,
      orderBy: `${as}.seq`,
      // A larger window is the resolvers', which read it within the request's budget (listAttacks).
      within: withinCompiledShareSql(`SELECT ${attackBytes(as)} AS size FROM airt_attack_spans ${as} ${where}`),
    };
  },
};

/** An assessment's analytics: its columns as AssessmentAnalyticsResponse declares them. */
export async function assessmentAnalytics(ctx: AppContext, org: string, ws: string, id: string): Promise<AssessmentAnalyticsResponse> {
  return fromRow(AssessmentAnalyticsResponse, await getAssessment(ctx, org, ws, id));
}

/**
 * The same as the compiled reply's root (SqlRoot of `assessment_analytics`):
 * the tenant check as above, then the assessment's row in the workspace
 * (none leaves the reply to the resolver's 404).
 */
export const ANALYTICS_ROOT: SqlRoot = {
  async from(ctx, args, params, as) {
    const scope = await resolveWorkspace(ctx, String(args.org), String(args.workspace));
    return `airt_assessments ${as} WHERE ${as}.id = ${params.add(args.assessment_id)} AND ${as}.workspace_id = ${params.add(scope.workspace.id)}`;
  },
};

interface TraceStatsRow {
  attack_spans: number;
  trial_spans: string | number;
  transform_spans: number;
  total_jailbreaks: number;
  max_score: number | null;
  avg_score: number | null;
  total_duration_s: number;
  avg_trial_time_ms: number | null;
  attack_names: string[];
}

export async function assessmentTraceStats(ctx: AppContext, org: string, ws: string, id: string) {
  const scope = await resolveWorkspace(ctx, org, ws);
  const assessment = await readAssessment(scope, id);
  const [row] = await plainQuery<TraceStatsRow>(TRACE_STATS_SQL, { assessment_id: assessment.id }, { prepare: 'assessment-trace-stats' });
  const trials = Number(row.trial_spans);
  return {
    total_spans: row.attack_spans + trials + row.transform_spans,
    attack_spans: row.attack_spans,
    trial_spans: trials,
    transform_spans: row.transform_spans,
    total_jailbreaks: row.total_jailbreaks,
    max_score: row.max_score === null ? null : Number(row.max_score),
    avg_score: row.avg_score === null ? null : Number(row.avg_score),
    total_duration_s: Number(row.total_duration_s),
    avg_trial_time_ms: row.avg_trial_time_ms === null ? null : Number(row.avg_trial_time_ms),
    attack_names: row.attack_names,
  };
}

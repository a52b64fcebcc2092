import type { AppContext } from '../../core/context';
import { NotFoundError } from '../../core/errors';
import { pageWindow, readPage, type ListPageArgs } from '../../core/pagination';
import { requireScope, resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { rowsWithinReply } from '../../core/reply-budget';
import { plainQuery } from '../../db/hot';
import { projectByKeyOrId } from '../projects/projects.service';
import { ASSESSMENT_WRITE, getAssessment } from './assessments.service';
import { FINDING_ORDER, findingBytes, findingColumns, findingFieldsOf, severitySql } from './findings.sql';
import { FINDING_PAGE, type AssessmentReportCreateRequest, type FindingListArgs, type ProjectReportGenerateRequest } from './reports.inputs';
import type { AssessmentReportResponse, AssessmentReportSummary, FindingListResponse, FindingResponse, GeneratedProjectReport, ProjectRedTeamSummary } from './reports.types';

/**
 * Red-team reports, findings and project summaries (decisions §14). Every
 * number is PostgreSQL's (counts, means, the severity rule in
 * findings.sql.ts); services start with the tenant, then the resource (404),
 * then the role (403).
 */

const REPORT_COLUMNS = 'r.id, r.assessment_id, r.report_type, r.created_at, r.updated_at';

export async function createReport(ctx: AppContext, org: string, ws: string, assessmentId: string, input: AssessmentReportCreateRequest): Promise<AssessmentReportResponse> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const assessment = await getAssessment(ctx, org, ws, assessmentId);
  requireScope(scope, ASSESSMENT_WRITE);
  const [report] = await plainQuery<AssessmentReportResponse>(
    `INSERT INTO airt_reports AS r (assessment_id, organization_id, workspace_id, report_type, content, content_json, created_by)
     VALUES ($assessment_id, $organization_id, $workspace_id, $report_type, $content, $content_json::jsonb, $user_id)
     RETURNING ${REPORT_COLUMNS}, r.content, r.content_json`,
    {
      assessment_id: assessment.id,
      organization_id: scope.org.id,
      workspace_id: scope.workspace.id,
      report_type: input.report_type,
      content: input.content ?? null,
      content_json: input.content_json === undefined || input.content_json === null ? null : JSON.stringify(input.content_json),
      user_id: scope.viewer.user.id,
    },
  );
  return report;
}

/** The assessment's reports, newest first, a page at a time (a bare array: a page shorter than `limit` is the last). */
export async function listReports(ctx: AppContext, org: string, ws: string, assessmentId: string, page: ListPageArgs): Promise<AssessmentReportSummary[]> {
  const assessment = await getAssessment(ctx, org, ws, assessmentId);
  return plainQuery<AssessmentReportSummary>(
    `SELECT ${REPORT_COLUMNS} FROM airt_reports r WHERE r.assessment_id = $assessment_id ORDER BY r.created_at DESC, r.id DESC LIMIT $limit OFFSET $offset`,
    { assessment_id: assessment.id, ...pageWindow(page) },
    { prepare: 'assessment-reports' },
  );
}

export async function getReport(ctx: AppContext, org: string, ws: string, assessmentId: string, reportId: string): Promise<AssessmentReportResponse> {
  const assessment = await getAssessment(ctx, org, ws, assessmentId);
  const [report] = await plainQuery<AssessmentReportResponse>(
    `SELECT ${REPORT_COLUMNS}, r.content, r.content_json FROM airt_reports r WHERE r.id = $id AND r.assessment_id = $assessment_id`,
    { id: reportId, assessment_id: assessment.id },
    { prepare: 'assessment-report-by-id' },
  );
  if (!report) throw new NotFoundError('Report');
  return report;
}

/** The assessment's sandbox, or 404 when it has none. */
export async function assessmentSandbox(ctx: AppContext, org: string, ws: string, assessmentId: string): Promise<Record<string, unknown>> {
  const assessment = await getAssessment(ctx, org, ws, assessmentId);
  if (!assessment.sandbox_detail) throw new NotFoundError('Sandbox');
  return assessment.sandbox_detail as Record<string, unknown>;
}

interface FindingQuery {
  where: string;
  bind: Record<string, unknown>;
}

/** The findings of a project matching the filters: attacks of its assessments. */
function findingFilter(projectId: string, workspaceId: string, args: FindingListArgs = {}): FindingQuery {
  const bind: Record<string, unknown> = { project_id: projectId, workspace_id: workspaceId };
  const where = ['a.project_id = $project_id', 'a.workspace_id = $workspace_id'];
  if (args.severity?.length) {
    bind.severity = args.severity;
    where.push(`${severitySql('s')} = ANY($severity::text[])`);
  }
  if (args.category) {
    bind.category = args.category;
    where.push('s.category = $category');
  }
  if (args.attack_name) {
    bind.attack_name = args.attack_name;
    where.push('s.attack_name = $attack_name');
  }
  if (args.min_score !== undefined && args.min_score !== null) {
    bind.min_score = args.min_score;
    where.push('s.best_score >= $min_score');
  }
  return { where: where.join(' AND '), bind };
}

const FROM_FINDINGS = 'FROM airt_attack_spans s JOIN airt_assessments a ON a.id = s.assessment_id';

/** A page of findings, read within the request's reply budget (a finding's goal may come to 400 KB: findingBytes). */
async function findings(ctx: AppContext, query: FindingQuery, sortBy: string, sortDir: string, limit: number, offset: number): Promise<FindingResponse[]> {
  const direction = sortDir === 'asc' ? 'ASC' : 'DESC';
  return rowsWithinReply<FindingResponse>(ctx, {
    rows: `SELECT ${findingColumns('s', 'a')}, ${FINDING_ORDER[sortBy]('s')} AS sort_key, s.seq, ${findingBytes('s', 'a')} AS size ${FROM_FINDINGS} WHERE ${query.where}
            ORDER BY ${FINDING_ORDER[sortBy]('s')} ${direction}, s.best_score DESC, s.assessment_id, s.seq LIMIT $limit OFFSET $offset`,
    order: [`sort_key ${direction}`, 'best_score DESC', 'assessment_id', 'seq'],
    select: findingFieldsOf('y'),
    bind: { ...query.bind, limit, offset },
    prepare: true,
  });
}

export async function listFindings(ctx: AppContext, org: string, ws: string, projectRef: string, args: FindingListArgs): Promise<FindingListResponse> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const project = await projectByKeyOrId(scope, projectRef);
  const page = args.page ?? 1;
  const pageSize = args.page_size ?? FINDING_PAGE.fallback;
  const query = findingFilter(project.id, scope.workspace.id, args);
  const { rows, total } = await readPage(
    page,
    pageSize,
    async () => (await plainQuery<{ total: number }>(`SELECT count(*)::int AS total ${FROM_FINDINGS} WHERE ${query.where}`, query.bind, { prepare: true }))[0].total,
    () => findings(ctx, query, args.sort_by ?? 'severity', args.sort_dir ?? 'desc', pageSize, (page - 1) * pageSize),
  );
  return { findings: rows, total, page, page_size: pageSize };
}

const SUMMARY_SQL = `
  SELECT count(a.id)::int AS total_assessments, max(a.updated_at) AS last_activity_at,
         avg(a.risk_score) AS avg_risk_score, avg(a.overall_asr) AS avg_asr, max(a.risk_score) AS max_risk_score,
         coalesce(sum(a.total_attacks), 0)::int AS total_attacks, coalesce(sum(a.total_trials), 0)::float8 AS total_trials,
         coalesce((SELECT jsonb_object_agg(x.status, x.n) FROM (SELECT status, count(*) AS n FROM airt_assessments
                    WHERE project_id = $project_id AND workspace_id = $workspace_id GROUP BY status) x), '{}'::jsonb) AS assessments_by_status
    FROM airt_assessments a
   WHERE a.project_id = $project_id AND a.workspace_id = $workspace_id`;

interface SummaryRow {
  total_assessments: number;
  last_activity_at: Date | null;
  avg_risk_score: number | null;
  avg_asr: number | null;
  max_risk_score: number | null;
  total_attacks: number;
  total_trials: number;
  assessments_by_status: Record<string, number>;
}

async function summaryOf(ctx: AppContext, scope: WorkspaceScope, project: { id: string; key: string; name: string }, top: number) {
  const query = findingFilter(project.id, scope.workspace.id);
  const [[row], topFindings] = await Promise.all([
    plainQuery<SummaryRow>(SUMMARY_SQL, { project_id: project.id, workspace_id: scope.workspace.id }, { prepare: 'project-redteam-summary' }),
    findings(ctx, query, 'severity', 'desc', top, 0),
  ]);
  return { row, topFindings };
}

export async function projectSummary(ctx: AppContext, org: string, ws: string, projectRef: string): Promise<ProjectRedTeamSummary> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const project = await projectByKeyOrId(scope, projectRef);
  const { row, topFindings } = await summaryOf(ctx, scope, project, 5);
  return {
    project_id: project.id,
    project_key: project.key,
    project_name: project.name,
    last_activity_at: row.last_activity_at,
    total_assessments: row.total_assessments,
    avg_risk_score: row.avg_risk_score,
    avg_asr: row.avg_asr,
    total_attacks: row.total_attacks,
    total_trials: row.total_trials,
    assessments_by_status: row.assessments_by_status,
    top_findings: topFindings,
  };
}

/** critical ≥ 7.5, high ≥ 5, moderate ≥ 2.5, else low: from the highest assessment risk score (0–10). */
export function riskLevel(maxRiskScore: number | null): string {
  if (maxRiskScore === null) return 'low';
  if (maxRiskScore >= 7.5) return 'critical';
  if (maxRiskScore >= 5) return 'high';
  if (maxRiskScore >= 2.5) return 'moderate';
  return 'low';
}

const fixed = (value: number | null, digits: number) => (value === null ? 'n/a' : value.toFixed(digits));

/**
 * A deterministic report of the project: its summary, its assessments and its
 * ten most severe findings, as markdown and/or JSON (no model is called; the
 * same data gives the same report but for `generated_at`).
 */
export async function generateProjectReport(ctx: AppContext, org: string, ws: string, projectRef: string, input: ProjectReportGenerateRequest): Promise<GeneratedProjectReport> {
  const scope = await resolveWorkspace(ctx, org, ws);
  const project = await projectByKeyOrId(scope, projectRef);
  // Generating is a writer's action like storing a report (every POST of the API needs a write scope); readers read the summary and findings.
  requireScope(scope, ASSESSMENT_WRITE);
  const [{ row, topFindings }, assessments, bySeverity] = await Promise.all([
    summaryOf(ctx, scope, project, 10),
    plainQuery<{ id: string; name: string; status: string; risk_score: number | null; overall_asr: number | null; total_attacks: number }>(
      `SELECT id, name, status, risk_score, overall_asr, total_attacks FROM airt_assessments
        WHERE project_id = $project_id AND workspace_id = $workspace_id ORDER BY created_at, id LIMIT 1000`,
      { project_id: project.id, workspace_id: scope.workspace.id },
    ),
    plainQuery<{ severity: string; n: number }>(
      `SELECT ${severitySql('s')} AS severity, count(*)::int AS n ${FROM_FINDINGS} WHERE a.project_id = $project_id AND a.workspace_id = $workspace_id GROUP BY 1`,
      { project_id: project.id, workspace_id: scope.workspace.id },
    ),
  ]);
  const level = riskLevel(row.max_risk_score);
  const severities = Object.fromEntries(['critical', 'high', 'medium', 'low', 'info'].map((name) => [name, bySeverity.find((item) => item.severity === name)?.n ?? 0]));
  const format = input.format ?? 'markdown';
  const json = {
    project: { id: project.id, key: project.key, name: project.name },
    risk_level: level,
    summary: {
      total_assessments: row.total_assessments,
      avg_risk_score: row.avg_risk_score,
      max_risk_score: row.max_risk_score,
      avg_asr: row.avg_asr,
      total_attacks: row.total_attacks,
      total_trials: row.total_trials,
      assessments_by_status: row.assessments_by_status,
      findings_by_severity: severities,
    },
    assessments,
    top_findings: topFindings,
  };
  const markdown = [
    `# Red-team report: ${markdownText(project.name)}`,
    '',
    `Risk level: **${level}** (highest assessment risk score ${fixed(row.max_risk_score, 2)} of 10).`,
    '',
    '## Summary',
    '',
    `- Assessments: ${row.total_assessments} (${Object.entries(row.assessments_by_status).map(([status, n]) => `${status} ${n}`).join(', ') || 'none'})`,
    `- Attacks: ${row.total_attacks}; trials: ${row.total_trials}`,
    `- Mean risk score: ${fixed(row.avg_risk_score, 2)}; mean attack success rate: ${row.avg_asr === null ? 'n/a' : `${(row.avg_asr * 100).toFixed(1)} %`}`,
    `- Findings by severity: ${Object.entries(severities).map(([name, n]) => `${name} ${n}`).join(', ')}`,
    '',
    '## Assessments',
    '',
    '| Assessment | Status | Risk score | ASR | Attacks |',
    '|---|---|---|---|---|',
    ...assessments.map((item) => `| ${markdownText(item.name)} | ${item.status} | ${fixed(item.risk_score, 2)} | ${fixed(item.overall_asr, 3)} | ${item.total_attacks} |`),
    '',
    '## Top findings',
    '',
    '| Severity | Attack | Goal category | Best score | Jailbreak | Assessment |',
    '|---|---|---|---|---|---|',
    ...topFindings.map(
      (item) =>
        `| ${item.severity} | ${markdownText(item.attack_name)} | ${markdownText(item.goal_category)} | ${item.best_score.toFixed(2)} | ${item.is_jailbreak ? 'yes' : 'no'} | ${markdownText(item.assessment_name)} |`,
    ),
    '',
  ].join('\n');
  return {
    content: format === 'json' ? null : markdown,
    content_json: format === 'markdown' ? null : json,
    generated_at: new Date(),
    total_assessments: row.total_assessments,
    risk_level: level,
  };
}

/**
 * A name as text inside one line of the report: line breaks become spaces (a name cannot end a table row or start
 * a heading), and every character markdown or HTML gives a meaning is escaped (no link, image, tag or emphasis).
 */
function markdownText(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/[\\`*_{}[\]()<>#+\-.!|~&]/g, '\\$&');
}

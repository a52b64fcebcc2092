import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import type { AppContext } from '../../core/context';
import { MaxItems, Rest } from '../../core/graphql-decorators';
import { ListPageArgs, MAX_LIST_PAGE } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { SandboxSummary } from './assessments.types';
import { AssessmentReportCreateRequest, FindingListArgs, ProjectReportGenerateRequest } from './reports.inputs';
import { assessmentSandbox, createReport, generateProjectReport, getReport, listFindings, listReports, projectSummary } from './reports.service';
import { AssessmentReportResponse, AssessmentReportSummary, FindingListResponse, GeneratedProjectReport, ProjectRedTeamSummary } from './reports.types';

const AIRT = '/org/:org/ws/:workspace/airt';
const ONE = `${AIRT}/assessments/:assessment_id`;
const PROJECT = `${AIRT}/projects/:project`;
const TAGS = { tags: ['airt'] };

/** Red-team reports, sandbox, findings and project summaries (decisions §14). */
@Resolver(() => AssessmentReportResponse)
export class AssessmentReportResolver {
  @Mutation(() => AssessmentReportResponse, { description: 'Store a report of an assessment (writers).' })
  @Rest('POST', `${ONE}/reports`, { status: 201, ...TAGS })
  create_assessment_report(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Arg('input', () => AssessmentReportCreateRequest, { description: 'The report.' }) input: AssessmentReportCreateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentReportResponse> {
    return createReport(ctx, org, workspace, assessmentId, input);
  }

  @Query(() => [AssessmentReportSummary], { description: "An assessment's reports, newest first, without content (a bare array on REST)." })
  @Rest('GET', `${ONE}/reports`, TAGS)
  @MaxItems(MAX_LIST_PAGE)
  assessment_reports(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Args(() => ListPageArgs) page: ListPageArgs,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentReportSummary[]> {
    return listReports(ctx, org, workspace, assessmentId, page);
  }

  @Query(() => AssessmentReportResponse, { nullable: true, description: 'One report of an assessment with its content.' })
  @Rest('GET', `${ONE}/reports/:report_id`, TAGS)
  assessment_report(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Arg('report_id', () => UUIDScalar, { description: "The report's id." }) reportId: string,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentReportResponse> {
    return getReport(ctx, org, workspace, assessmentId, reportId);
  }

  @Query(() => SandboxSummary, { nullable: true, description: 'The sandbox the assessment ran in (404 when it has none).' })
  @Rest('GET', `${ONE}/sandbox`, TAGS)
  async assessment_sandbox(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Ctx() ctx: AppContext,
  ): Promise<SandboxSummary> {
    return fromRow(SandboxSummary, await assessmentSandbox(ctx, org, workspace, assessmentId));
  }

  @Query(() => ProjectRedTeamSummary, { nullable: true, description: "A project's red-team summary: its assessments' totals and its five most severe findings." })
  @Rest('GET', `${PROJECT}/summary`, TAGS)
  project_redteam_summary(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project', () => String, { description: "The project's key or id." }) project: string,
    @Ctx() ctx: AppContext,
  ): Promise<ProjectRedTeamSummary> {
    return projectSummary(ctx, org, workspace, project);
  }

  @Query(() => FindingListResponse, { description: "A project's findings (its assessments' attacks, rated), filtered, sorted and paged." })
  @Rest('GET', `${PROJECT}/findings`, TAGS)
  project_findings(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project', () => String, { description: "The project's key or id." }) project: string,
    @Args(() => FindingListArgs) args: FindingListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<FindingListResponse> {
    return listFindings(ctx, org, workspace, project, args);
  }

  @Mutation(() => GeneratedProjectReport, { description: "Generate a project's report from its assessments and findings (deterministic; nothing is stored)." })
  @Rest('POST', `${PROJECT}/reports/generate`, TAGS)
  generate_project_report(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project', () => String, { description: "The project's key or id." }) project: string,
    @Arg('input', () => ProjectReportGenerateRequest, { description: 'The format.' }) input: ProjectReportGenerateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<GeneratedProjectReport> {
    return generateProjectReport(ctx, org, workspace, project, input);
  }
}

import { SqlRootField, fromRow } from '../../core/graphql-sql/sql-fields';
import { Arg, Args, Ctx, Extensions, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { UUIDScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { ProjectResponse } from '../projects/projects.types';
import { toSession } from '../sessions/sessions.mapper';
import { SessionResponse } from '../sessions/sessions.types';
import { AssessmentCreateRequest, AssessmentListArgs, AssessmentUpdateRequest, AttackListArgs, AttackSpanIngestRequest, ATTACK_PAGE } from './assessments.inputs';
import {
  assessmentAnalytics,
  ANALYTICS_ROOT,
  assessmentTraceStats,
  createAssessment,
  deleteAssessment,
  getAssessment,
  ingestAttacks,
  listAssessments,
  listAttacks,
  ATTACK_LIST_ROOT,
  updateAssessment,
} from './assessments.service';
import {
  AssessmentAnalyticsResponse,
  AssessmentDeletedResponse,
  AssessmentListResponse,
  AssessmentResponse,
  AssessmentTraceStats,
  AttackIngestResponse,
  AttackSpanResponse,
} from './assessments.types';

const BASE = '/org/:org/ws/:workspace/airt/assessments';
const ONE = `${BASE}/:assessment_id`;
const TAGS = { tags: ['airt'] };

/** A span row is a narrow read: priced per hundred spans so a whole list fits the budget. */
const attackListCost: ComplexityEstimator = ({ args, childComplexity }) =>
  10 + Math.ceil(((args.limit as number | undefined) ?? ATTACK_PAGE.fallback) / 100) * (1 + childComplexity);

/** Row → reply: the fields AssessmentResponse declares. */
const toAssessment = (row: object) => fromRow(AssessmentResponse, row);

@Resolver(() => AssessmentResponse)
export class AssessmentResolver {
  @Query(() => AssessmentListResponse, { description: 'List assessments, newest first (spec 12).' })
  @Rest('GET', BASE, TAGS)
  async assessments(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => AssessmentListArgs) args: AssessmentListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentListResponse> {
    const result = await listAssessments(ctx, org, workspace, args);
    return { items: result.items.map(toAssessment), page: result.page, page_size: result.page_size, total: result.total };
  }

  @Mutation(() => AssessmentResponse, { description: 'Create an assessment (spec 11); status pending.' })
  @Rest('POST', BASE, { status: 201, ...TAGS })
  async create_assessment(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('project_id', () => UUIDScalar, { nullable: true, description: "The workspace's default project when absent." }) projectId: string | null,
    @Arg('input', () => AssessmentCreateRequest, { description: 'The new assessment.' }) input: AssessmentCreateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentResponse> {
    return toAssessment(await createAssessment(ctx, org, workspace, projectId, input));
  }

  @Query(() => AssessmentResponse, { nullable: true, description: 'Get one assessment with its analytics snapshot (spec 13).' })
  @Rest('GET', ONE, TAGS)
  async assessment(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentResponse> {
    return toAssessment(await getAssessment(ctx, org, workspace, assessmentId));
  }

  @Mutation(() => AssessmentResponse, { description: 'Update status, name, description or sandbox detail.' })
  @Rest('PATCH', ONE, TAGS)
  async update_assessment(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Arg('input', () => AssessmentUpdateRequest, { description: 'The changes.' }) input: AssessmentUpdateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentResponse> {
    return toAssessment(await updateAssessment(ctx, org, workspace, assessmentId, input));
  }

  @Mutation(() => AssessmentDeletedResponse, { description: 'Delete an assessment and its attack spans.' })
  @Rest('DELETE', ONE, TAGS)
  delete_assessment(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentDeletedResponse> {
    return deleteAssessment(ctx, org, workspace, assessmentId);
  }

  @Query(() => [AttackSpanResponse], { description: 'Attack spans in ingest order, every default filled (spec 14).', complexity: attackListCost })
  @Rest('GET', `${ONE}/traces/attacks`, {
    ...TAGS,
    replyHeaders: {
      'X-Total-Count': 'How many attack spans the assessment holds.',
      Link: 'The next window (`rel="next"`), while `offset` can reach one.',
    },
  })
  @SqlRootField(ATTACK_LIST_ROOT)
  async assessment_attacks(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Args(() => AttackListArgs) args: AttackListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<AttackSpanResponse[]> {
    return listAttacks(ctx, org, workspace, assessmentId, args);
  }

  @Mutation(() => AttackIngestResponse, { description: 'Ingest up to 1,000 attack spans; the first ingest moves pending → running.' })
  @Rest('POST', `${ONE}/traces/attacks`, { status: 201, ...TAGS })
  async ingest_assessment_attacks(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Arg('input', () => AttackSpanIngestRequest, { description: 'The attack records.' }) input: AttackSpanIngestRequest,
    @Ctx() ctx: AppContext,
  ): Promise<AttackIngestResponse> {
    const result = await ingestAttacks(ctx, org, workspace, assessmentId, input);
    return { ingested: result.ingested, assessment: toAssessment(result.assessment) };
  }

  @Query(() => AssessmentAnalyticsResponse, { description: 'Risk score, overall ASR, totals and the analytics snapshot.' })
  @Rest('GET', `${ONE}/analytics`, TAGS)
  @SqlRootField(ANALYTICS_ROOT)
  assessment_analytics(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentAnalyticsResponse> {
    return assessmentAnalytics(ctx, org, workspace, assessmentId);
  }

  @Query(() => AssessmentTraceStats, { description: 'Statistics over the ingested attack spans, computed in SQL.' })
  @Rest('GET', `${ONE}/traces`, TAGS)
  assessment_trace_stats(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('assessment_id', () => UUIDScalar, { description: "The assessment's id." }) assessmentId: string,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentTraceStats> {
    return assessmentTraceStats(ctx, org, workspace, assessmentId);
  }

  @FieldResolver(() => UserIdentityResponse, { nullable: true, description: 'The creating user.' })
  async created_by_user(@Root() assessment: AssessmentResponse, @Ctx() ctx: AppContext): Promise<UserIdentityResponse | null> {
    const user = await ctx.loaders.userById.load(assessment.user_id);
    return user ? fromRow(UserIdentityResponse, user) : null;
  }

  // GraphQL-only navigation (kept out of REST replies), batched per request.

  @FieldResolver(() => [AttackSpanResponse], { description: 'Attack spans in ingest order (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async attacks(
    @Root() assessment: AssessmentResponse,
    @ChildLimit(100, { max: 1000 }) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<AttackSpanResponse[]> {
    return ctx.loaders.attacksByAssessment.load({ parent_id: assessment.id, limit });
  }

  @FieldResolver(() => SessionResponse, { nullable: true, description: 'The linked session, when the caller can see it (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async session(@Root() assessment: AssessmentResponse, @Ctx() ctx: AppContext): Promise<SessionResponse | null> {
    if (!assessment.session_id) return null;
    const row = await ctx.loaders.assessmentSessionById.load(assessment.session_id);
    return row ? toSession(row) : null;
  }
}

/** `project.assessments` (GraphQL only): the assessments module owns the data, so it adds the field. */
@Resolver(() => ProjectResponse)
export class ProjectAssessmentsResolver {
  @FieldResolver(() => [AssessmentResponse], { description: 'Assessments of the project, newest first (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  async assessments(
    @Root() project: ProjectResponse,
    @ChildLimit(20) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<AssessmentResponse[]> {
    const rows = await ctx.loaders.assessmentsByProject.load({ parent_id: project.id, limit });
    return rows.map(toAssessment);
  }
}

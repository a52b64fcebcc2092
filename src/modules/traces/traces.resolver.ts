import { Arg, Args, Ctx, Extensions, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { resolveWorkspace } from '../../core/tenancy/tenant-scope';
import { AssessmentResponse } from '../assessments/assessments.types';
import { getEvaluation } from '../evaluations/evaluations.service';
import { EvaluationJobResponse } from '../evaluations/evaluations.types';
import { WorkspaceResponse } from '../workspaces/workspaces.types';
import { traceKey } from './traces.loaders';
import { SpanListArgs, TRACE_ITEM_PAGE, TraceItemsArgs, TraceListArgs } from './traces.inputs';
import { evaluationTraceItems, evaluationTraceStats, getTrace, listTraces, TRACE_SPANS_ROOT, traceSpans, traceStats } from './traces.service';
import { SqlRootField } from '../../core/graphql-sql/sql-fields';
import {
  EvaluationTraceItemsResponse,
  SpanResponse,
  TraceDetail,
  TraceListResponse,
  TraceSpansResponse,
  TraceStatsResponse,
  TraceSummary,
} from './traces.types';

const WS = '/org/:org/ws/:workspace';
const ONE = `${WS}/traces/:trace_id`;
const TAGS = { tags: ['traces'] };

@Resolver(() => TraceSummary)
export class TraceResolver {
  @Query(() => TraceListResponse, { description: 'The traces of a workspace, newest first: each its root span\'s summary (decisions §15).' })
  @Rest('GET', `${WS}/traces`, TAGS)
  traces(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => TraceListArgs) args: TraceListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<TraceListResponse> {
    return listTraces(ctx, org, workspace, args);
  }

  @Query(() => TraceDetail, { nullable: true, description: "One trace: its root span's summary and attributes (404 when the workspace holds no root of it)." })
  @Rest('GET', ONE, TAGS)
  trace(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('trace_id', () => String, { description: 'The trace id (32 hex digits).' }) traceId: string,
    @Ctx() ctx: AppContext,
  ): Promise<TraceDetail> {
    return getTrace(ctx, org, workspace, traceId);
  }

  @Query(() => TraceSpansResponse, { description: "A window of a trace's spans, in the order asked for." })
  @Rest('GET', `${ONE}/spans`, TAGS)
  @SqlRootField(TRACE_SPANS_ROOT)
  trace_spans(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('trace_id', () => String, { description: 'The trace id (32 hex digits).' }) traceId: string,
    @Args(() => SpanListArgs) args: SpanListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<TraceSpansResponse> {
    return traceSpans(ctx, org, workspace, traceId, args);
  }

  @Query(() => TraceStatsResponse, { description: "Statistics of a trace's spans." })
  @Rest('GET', `${ONE}/stats`, TAGS)
  trace_stats(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('trace_id', () => String, { description: 'The trace id (32 hex digits).' }) traceId: string,
    @Ctx() ctx: AppContext,
  ): Promise<TraceStatsResponse> {
    return traceStats(ctx, org, workspace, traceId);
  }

  @Query(() => TraceStatsResponse, { description: "Statistics of an evaluation's spans: every span of the traces whose root names it (decisions §14)." })
  @Rest('GET', `${WS}/evaluation/:id/traces`, { tags: ['evaluations'] })
  async evaluation_trace_stats(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Ctx() ctx: AppContext,
  ): Promise<TraceStatsResponse> {
    const scope = await resolveWorkspace(ctx, org, workspace);
    const evaluation = await getEvaluation(ctx, org, workspace, id);
    return evaluationTraceStats(scope, evaluation.id);
  }

  @Query(() => EvaluationTraceItemsResponse, { description: "An evaluation's traces per item (decisions §14)." })
  @Rest('GET', `${WS}/evaluation/:id/traces/items`, { tags: ['evaluations'] })
  async evaluation_trace_items(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Args(() => TraceItemsArgs) args: TraceItemsArgs,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationTraceItemsResponse> {
    const scope = await resolveWorkspace(ctx, org, workspace);
    const evaluation = await getEvaluation(ctx, org, workspace, id);
    return { items: await evaluationTraceItems(scope, evaluation.id, { limit: args.limit ?? TRACE_ITEM_PAGE.fallback, offset: args.offset ?? 0 }) };
  }

  @FieldResolver(() => [SpanResponse], { description: 'The first `limit` spans of the trace by start time (GraphQL only; REST: /traces/{trace_id}/spans).' })
  @Extensions({ graphqlOnly: true })
  async spans(
    @Root() trace: TraceSummary,
    @ChildLimit(100, { max: 1000, what: 'Spans' }) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<SpanResponse[]> {
    return ctx.loaders.spansByTrace.load({ parent_id: traceKey(trace), limit });
  }

  @FieldResolver(() => TraceStatsResponse, { nullable: true, description: "Statistics of the trace's spans (GraphQL only; REST: /traces/{trace_id}/stats)." })
  @Extensions({ graphqlOnly: true })
  stats(@Root() trace: TraceSummary, @Ctx() ctx: AppContext): Promise<TraceStatsResponse | null> {
    return ctx.loaders.statsByTrace.load(traceKey(trace));
  }
}

/** Traces of the workspace, an evaluation and an assessment, for dashboards (batched, GraphQL only). */
@Resolver(() => WorkspaceResponse)
export class WorkspaceTracesResolver {
  @FieldResolver(() => [TraceSummary], { description: 'The newest traces of the workspace (GraphQL only; REST: /traces).' })
  @Extensions({ graphqlOnly: true })
  traces(@Root() workspace: WorkspaceResponse, @ChildLimit(20, { what: 'Traces' }) limit: number, @Ctx() ctx: AppContext): Promise<TraceSummary[]> {
    return ctx.loaders.tracesByWorkspace.load({ parent_id: workspace.id, limit });
  }
}

@Resolver(() => EvaluationJobResponse)
export class EvaluationTracesResolver {
  @FieldResolver(() => [TraceSummary], { description: 'The newest traces whose root names this evaluation (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  traces(@Root() evaluation: EvaluationJobResponse, @ChildLimit(20, { what: 'Traces' }) limit: number, @Ctx() ctx: AppContext): Promise<TraceSummary[]> {
    return ctx.loaders.tracesByEvaluation.load({ parent_id: evaluation.id, limit });
  }
}

@Resolver(() => AssessmentResponse)
export class AssessmentTracesResolver {
  @FieldResolver(() => [TraceSummary], { description: 'The newest traces holding one of its study (attack) spans (GraphQL only).' })
  @Extensions({ graphqlOnly: true })
  traces(@Root() assessment: AssessmentResponse, @ChildLimit(20, { what: 'Traces' }) limit: number, @Ctx() ctx: AppContext): Promise<TraceSummary[]> {
    return ctx.loaders.tracesByAssessment.load({ parent_id: assessment.id, limit });
  }
}

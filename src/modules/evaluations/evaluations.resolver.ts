import { fromRow } from '../../core/graphql-sql/sql-fields';
import { Arg, Args, Ctx, Extensions, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { wholeEmbeddedListCost, withBaseCost } from '../../core/graphql-limits';
import { UUIDScalar } from '../../core/scalars';
import { UserIdentityResponse } from '../accounts/accounts.types';
import { toTaskSet } from '../catalogs/catalogs.mapper';
import { TaskSetResponse, TaskSummary } from '../catalogs/catalogs.types';
import { toSessionGroup } from '../session-groups/session-groups.mapper';
import { JSONScalar } from '../../core/scalars';
import { TranscriptReadArgs, TrajectoryArgs } from '../sessions/sessions.inputs';
import { toSession } from '../sessions/sessions.mapper';
import { TranscriptMessage, TranscriptResponse } from '../sessions/sessions.types';
import type { TrajectoryFormat } from '../sessions/trajectory';
import { itemTranscript, itemTrajectory } from './item-session';
import { SessionGroupSummary } from '../session-groups/session-groups.types';
import { CreateEvaluationRequest, EvaluationItemListArgs, EvaluationItemTransitionRequest, EvaluationListArgs } from './evaluations.inputs';
import { toEvaluation, toEvaluationItem } from './evaluations.mapper';
import {
  cancelEvaluation,
  createEvaluation,
  getAnalytics,
  getEvaluation,
  getItem,
  listEvaluations,
  listItems,
  retryFailed,
  transitionItem,
} from './evaluations.service';
import {
  EvaluationItemListResponse,
  EvaluationItemResponse,
  EvaluationJobResponse,
  EvaluationListResponse,
  EvaluationSummaryResponse,
  maxSkippedMembers,
  toAnalytics,
} from './evaluations.types';

const WS = '/org/:org/ws/:workspace';
const ONE = `${WS}/evaluation/:id`;
const TAGS = { tags: ['evaluations'] };
/** The roots that answer one evaluation answer its skipped members whole: priced so (a list's evaluations carry the first EMBEDDED_LIST_CAP). */
const WHOLE_SKIPPED_MEMBERS = wholeEmbeddedListCost('skipped_members', maxSkippedMembers);

@Resolver(() => EvaluationJobResponse)
export class EvaluationResolver {
  @Query(() => EvaluationListResponse, { description: 'List the evaluations of a workspace, newest first.', complexity: withBaseCost(250, 50) })
  @Rest('GET', `${WS}/evaluations`, TAGS)
  async evaluations(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => EvaluationListArgs) args: EvaluationListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationListResponse> {
    const result = await listEvaluations(ctx, org, workspace, args);
    return { items: result.rows.map(toEvaluation), total: result.total, page: result.page, page_size: result.page_size };
  }

  @Mutation(() => EvaluationJobResponse, { description: 'Create an evaluation job (spec 5): one item per resolved task and per dataset row.', complexity: WHOLE_SKIPPED_MEMBERS })
  @Rest('POST', `${WS}/evaluation`, { status: 201, ...TAGS })
  async create_evaluation(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('input', () => CreateEvaluationRequest, { description: 'The new evaluation.' }) input: CreateEvaluationRequest,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationJobResponse> {
    return toEvaluation(await createEvaluation(ctx, org, workspace, input));
  }

  @Query(() => EvaluationJobResponse, { nullable: true, description: 'Get one evaluation with its live item counters.', complexity: WHOLE_SKIPPED_MEMBERS })
  @Rest('GET', ONE, TAGS)
  async evaluation(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationJobResponse> {
    return toEvaluation(await getEvaluation(ctx, org, workspace, id));
  }

  @Mutation(() => EvaluationJobResponse, { description: 'Request cancellation: queued items are cancelled; the job ends cancelled once nothing runs.', complexity: WHOLE_SKIPPED_MEMBERS })
  @Rest('POST', `${ONE}/cancel`, TAGS)
  async cancel_evaluation(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationJobResponse> {
    return toEvaluation(await cancelEvaluation(ctx, org, workspace, id));
  }

  @Mutation(() => EvaluationJobResponse, { description: 'Queue a new attempt of every failed, errored, infra_error or timed_out item.', complexity: WHOLE_SKIPPED_MEMBERS })
  @Rest('POST', `${ONE}/retry-failed`, TAGS)
  async retry_failed_evaluation_items(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationJobResponse> {
    return toEvaluation(await retryFailed(ctx, org, workspace, id));
  }

  @Query(() => EvaluationSummaryResponse, { description: 'The analytics of a completed evaluation (404 while it has none).' })
  @Rest('GET', `${ONE}/analytics`, TAGS)
  async evaluation_analytics(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationSummaryResponse> {
    return toAnalytics(await getAnalytics(ctx, org, workspace, id))!;
  }

  @Query(() => EvaluationItemListResponse, { description: 'The items of an evaluation in creation order.', complexity: withBaseCost(10, 1000) })
  @Rest('GET', `${ONE}/items`, TAGS)
  async evaluation_items(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Args(() => EvaluationItemListArgs) args: EvaluationItemListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationItemListResponse> {
    return { items: (await listItems(ctx, org, workspace, id, args)).map(toEvaluationItem) };
  }

  @Query(() => EvaluationItemResponse, { nullable: true, description: 'One item of an evaluation.' })
  @Rest('GET', `${ONE}/items/:item_id`, TAGS)
  async evaluation_item(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Arg('item_id', () => UUIDScalar, { description: "The item's id." }) itemId: string,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationItemResponse> {
    return toEvaluationItem(await getItem(ctx, org, workspace, id, itemId));
  }

  @Query(() => TranscriptResponse, { description: "The transcript of the item's session (its evaluation_item session group's newest session the caller can see; 404 when none).", complexity: withBaseCost(10, 100) })
  @Rest('GET', `${ONE}/items/:item_id/transcript`, TAGS)
  async evaluation_item_transcript(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Arg('item_id', () => UUIDScalar, { description: "The item's id." }) itemId: string,
    @Args(() => TranscriptReadArgs) args: TranscriptReadArgs,
    @Ctx() ctx: AppContext,
  ): Promise<TranscriptResponse> {
    const result = await itemTranscript(ctx, org, workspace, id, itemId, args);
    return { session: toSession(result.session), messages: result.messages.map((row) => fromRow(TranscriptMessage, row)), has_more: result.has_more };
  }

  @Query(() => JSONScalar, { nullable: true, description: "The item's session as a trajectory (ATIF v1.7 or OpenAI messages; 404 when the item has no session).", complexity: withBaseCost(200) })
  @Rest('GET', `${ONE}/items/:item_id/trajectory`, TAGS)
  evaluation_item_trajectory(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Arg('item_id', () => UUIDScalar, { description: "The item's id." }) itemId: string,
    @Args(() => TrajectoryArgs) args: TrajectoryArgs,
    @Ctx() ctx: AppContext,
  ): Promise<unknown> {
    return itemTrajectory(ctx, org, workspace, id, itemId, (args.format ?? 'atif') as TrajectoryFormat, args.include_compacted ?? false);
  }

  @Mutation(() => EvaluationItemResponse, { description: 'Move an item along its state machine (409 for any other move).' })
  @Rest('POST', `${ONE}/items/:item_id/transition`, TAGS)
  async transition_evaluation_item(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('id', () => String, { description: "The evaluation's id, or a unique prefix of at least 8 characters." }) id: string,
    @Arg('item_id', () => UUIDScalar, { description: "The item's id." }) itemId: string,
    @Arg('input', () => EvaluationItemTransitionRequest, { description: 'The state to move to, and an error message when it failed.' }) input: EvaluationItemTransitionRequest,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationItemResponse> {
    return toEvaluationItem((await transitionItem(ctx, org, workspace, id, itemId, input)).item);
  }

  @FieldResolver(() => UserIdentityResponse, { nullable: true, description: 'The creator (null once the user is gone).' })
  async created_by_user(@Root() job: EvaluationJobResponse, @Ctx() ctx: AppContext): Promise<UserIdentityResponse | null> {
    if (!job.created_by) return null;
    const user = await ctx.loaders.userById.load(job.created_by);
    return user ? fromRow(UserIdentityResponse, user) : null;
  }

  // GraphQL-only navigation (kept out of REST replies).

  @FieldResolver(() => [EvaluationItemResponse], { description: 'The items in creation order.' })
  @Extensions({ graphqlOnly: true })
  async items(
    @Root() job: EvaluationJobResponse,
    @ChildLimit(100) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationItemResponse[]> {
    return (await ctx.loaders.evaluationItemRows.load({ parent_id: job.id, limit })).map(toEvaluationItem);
  }

  @FieldResolver(() => TaskSetResponse, { nullable: true, description: 'The task set it was created from, while it exists and is visible.' })
  @Extensions({ graphqlOnly: true })
  async task_set(@Root() job: EvaluationJobResponse, @Ctx() ctx: AppContext): Promise<TaskSetResponse | null> {
    if (!job.task_set_id) return null;
    const row = await ctx.loaders.evaluationTaskSet.load(job.task_set_id);
    return row ? toTaskSet(row, job.organization_id) : null;
  }
}

@Resolver(() => EvaluationItemResponse)
export class EvaluationItemResolver {
  @FieldResolver(() => TaskSummary, { nullable: true, description: 'The task version the item runs (null for a dataset row).' })
  @Extensions({ graphqlOnly: true })
  async task(@Root() item: EvaluationItemResponse, @Ctx() ctx: AppContext): Promise<TaskSummary | null> {
    if (!item.task_id) return null;
    return ctx.loaders.evaluationTask.load(`${item.organization_id} ${item.task_id}`);
  }

  @FieldResolver(() => [SessionGroupSummary], { description: 'Session groups of kind evaluation_item linked to this item, newest first.' })
  @Extensions({ graphqlOnly: true })
  async session_groups(
    @Root() item: EvaluationItemResponse,
    @ChildLimit(20) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<SessionGroupSummary[]> {
    return (await ctx.loaders.itemSessionGroups.load({ parent_id: item.id, limit })).map(toSessionGroup);
  }
}

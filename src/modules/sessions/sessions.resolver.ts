import { Arg, Args, Ctx, Extensions, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { ChildLimit, Rest } from '../../core/graphql-decorators';
import { withBaseCost } from '../../core/graphql-limits';
import { Sql, SqlRootField, fromRow } from '../../core/graphql-sql/sql-fields';
import { SESSION_RELATIONS } from './sessions.graphql-sql';
import { pageInfo } from '../../core/pagination';
import { toProject } from '../projects/projects.mapper';
import { ProjectResponse } from '../projects/projects.types';
import { toSessionGroup } from '../session-groups/session-groups.mapper';
import { SessionGroupSummary } from '../session-groups/session-groups.types';
import {
  asksForEvents,
  SessionCreateRequest,
  SessionEventsArgs,
  SessionFilterArgs,
  SessionListArgs,
  SessionUpdateRequest,
  TranscriptAppendRequest,
  TranscriptCompactRequest,
  TranscriptReadArgs,
  TranscriptRewindRequest,
  TrajectoryArgs,
} from './sessions.inputs';
import { DEFAULT_TRANSCRIPT_PAGE } from './sessions.limits';
import { sessionTrajectory, type TrajectoryFormat } from './trajectory';
import { JSONScalar } from '../../core/scalars';
import { toSession } from './sessions.mapper';
import { sessionFacets } from './session-facets.service';
import { listSessions, SESSION_LIST_ROOT } from './session-list.service';
import { SESSION_ROOT } from './session-ref';
import { deleteSession, freezeSession, getSession, saveSession, setArchived, updateSession } from './sessions.service';
import { appendTranscript, compactTranscript, readTranscript, rewindTranscript, sessionEvents } from './transcript.service';
import {
  SessionArchivedScope,
  SessionCreatorResponse,
  SessionDeleteResponse,
  SessionFacetsResponse,
  SessionListResponse,
  SessionResponse,
  SessionUsageResponse,
  TranscriptAppendResponse,
  TranscriptCompactResponse,
  TranscriptMessage,
  TranscriptResponse,
  TranscriptRewindResponse,
} from './sessions.types';

const WS = '/org/:org/ws/:workspace/sessions';

/**
 * Query costs (graphql-limits.ts), calibrated with `npm run bench -- limits`
 * (figures in bench/README.md, limits): facets aggregate every visible
 * session of the workspace (one per operation fits the default budget); a
 * list page runs a count too (heavier with a search or over archived
 * sessions: one such list per operation); a session's usage aggregates its
 * messages (4 per session instead of 1).
 */
const FACETS_COST = 6000;
const USAGE_COST = 3;
// A search, or a scope other than the active sessions (which the list index does not cover), is the heavy kind.
const listCost = (args: Record<string, unknown>) => (args.search || (args.archived && args.archived !== SessionArchivedScope.active) ? 5001 : 1500);
const TAGS = { tags: ['sessions'] };



/** A value now, or once loaded. */
type Nullable<T> = T | null | Promise<T | null>;

@Resolver(() => SessionResponse)
export class SessionResolver {
  @Query(() => SessionListResponse, {
    description: 'List the sessions the caller can see, filtered, sorted and paged.',
    complexity: withBaseCost(listCost, 20),
  })
  @Rest('GET', WS, TAGS)
  @SqlRootField(SESSION_LIST_ROOT)
  async sessions(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => SessionListArgs) args: SessionListArgs,
    @Ctx() ctx: AppContext,
  ): Promise<SessionListResponse> {
    const result = await listSessions(ctx, org, workspace, args);
    return { sessions: result.sessions.map(toSession), ...pageInfo(result.total, result.page, result.limit) };
  }

  @Query(() => SessionFacetsResponse, { description: 'Per-dimension counts over the sessions the caller can see (spec 1).', complexity: FACETS_COST })
  @Rest('GET', `${WS}/facets`, TAGS)
  session_facets(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Args(() => SessionFilterArgs) args: SessionFilterArgs,
    @Ctx() ctx: AppContext,
  ): Promise<SessionFacetsResponse> {
    return sessionFacets(ctx, org, workspace, args);
  }

  @Query(() => SessionResponse, {
    nullable: true,
    description: 'Get one session by id or unique id prefix (4+ characters), with its transcript `events` when `limit` or `after_sequence` is given.',
    // One session; asked for events, a page of them (`events` prices one, this its page).
    complexity: ({ args, childComplexity }) => (asksForEvents(args) ? (args.limit ?? DEFAULT_TRANSCRIPT_PAGE) : 1) * (1 + childComplexity),
  })
  @Rest('GET', `${WS}/:session_id`, TAGS)
  @SqlRootField(SESSION_ROOT)
  async session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Args(() => SessionEventsArgs) events: SessionEventsArgs,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse> {
    const session = await getSession(ctx, org, workspace, sessionId);
    const rows = await sessionEvents(ctx, session.id, events);
    return Object.assign(toSession(session), { events: rows && rows.map((row) => fromRow(TranscriptMessage, row)) });
  }

  @Mutation(() => SessionResponse, { description: 'Save a session: 201 when the id is new, 200 when the owner saves it again (spec 2).' })
  @Rest('POST', WS, { status: 201, alsoReturns: [200], ...TAGS })
  async save_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('input', () => SessionCreateRequest, { description: "The session's metadata." }) input: SessionCreateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse> {
    const { session, created } = await saveSession(ctx, org, workspace, input);
    if (!created) ctx.response.status = 200;
    return toSession(session);
  }

  @Mutation(() => SessionResponse, { description: 'Update a session: absent fields stay, labels replace, visibility only private → workspace.' })
  @Rest('PATCH', `${WS}/:session_id`, TAGS)
  async update_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Arg('input', () => SessionUpdateRequest, { description: 'The changes.' }) input: SessionUpdateRequest,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse> {
    return toSession(await updateSession(ctx, org, workspace, sessionId, input));
  }

  @Mutation(() => SessionDeleteResponse, { description: 'Delete a session and its transcript.' })
  @Rest('DELETE', `${WS}/:session_id`, TAGS)
  async delete_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Ctx() ctx: AppContext,
  ): Promise<SessionDeleteResponse> {
    return { id: await deleteSession(ctx, org, workspace, sessionId), deleted: true };
  }

  @Mutation(() => SessionResponse, { description: 'Archive a session (idempotent).' })
  @Rest('POST', `${WS}/:session_id/archive`, TAGS)
  async archive_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse> {
    return toSession(await setArchived(ctx, org, workspace, sessionId, true));
  }

  @Mutation(() => SessionResponse, { description: 'Unarchive a session (idempotent, spec 4).' })
  @Rest('POST', `${WS}/:session_id/unarchive`, TAGS)
  async unarchive_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse> {
    return toSession(await setArchived(ctx, org, workspace, sessionId, false));
  }

  @Mutation(() => SessionResponse, { description: 'Freeze a session: it accepts no transcript writes afterwards.' })
  @Rest('POST', `${WS}/:session_id/freeze`, TAGS)
  async freeze_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Ctx() ctx: AppContext,
  ): Promise<SessionResponse> {
    return toSession(await freezeSession(ctx, org, workspace, sessionId));
  }

  @Query(() => TranscriptResponse, {
    description: 'Read a transcript page (non-compacted messages unless include_compacted).',
    complexity: withBaseCost(10, 100),
  })
  @Rest('GET', `${WS}/:session_id/transcript`, TAGS)
  async session_transcript(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Args(() => TranscriptReadArgs) args: TranscriptReadArgs,
    @Ctx() ctx: AppContext,
  ): Promise<TranscriptResponse> {
    const result = await readTranscript(ctx, org, workspace, sessionId, args);
    return { session: toSession(result.session), messages: result.messages.map((row) => fromRow(TranscriptMessage, row)), has_more: result.has_more };
  }

  @Mutation(() => TranscriptAppendResponse, { description: 'Append messages to a transcript.' })
  @Rest('POST', `${WS}/:session_id/transcript`, { status: 201, ...TAGS })
  async append_session_transcript(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Arg('input', () => TranscriptAppendRequest, { description: 'The messages to append.' }) input: TranscriptAppendRequest,
    @Ctx() ctx: AppContext,
  ): Promise<TranscriptAppendResponse> {
    const result = await appendTranscript(ctx, org, workspace, sessionId, input);
    return { session: toSession(result.session), messages: result.messages.map((row) => fromRow(TranscriptMessage, row)) };
  }

  @Query(() => JSONScalar, {
    nullable: true,
    description: "The session's transcript as a trajectory: ATIF v1.7 (an object), OpenAI Chat Completions messages (an array) or native `{session, messages, events}`.",
    complexity: withBaseCost(200),
  })
  @Rest('GET', `${WS}/:session_id/trajectory`, TAGS)
  session_trajectory(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Args(() => TrajectoryArgs) args: TrajectoryArgs,
    @Ctx() ctx: AppContext,
  ): Promise<unknown> {
    return sessionTrajectory(ctx, org, workspace, sessionId, (args.format ?? 'atif') as TrajectoryFormat, args.include_compacted ?? false);
  }

  @Mutation(() => TranscriptRewindResponse, { description: 'Delete a user message and every later one for good (frozen sessions 409); usage and group roll-ups follow.' })
  @Rest('POST', `${WS}/:session_id/rewind`, TAGS)
  rewind_session(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Arg('input', () => TranscriptRewindRequest, { description: 'The seq of the user message to rewind to.' }) input: TranscriptRewindRequest,
    @Ctx() ctx: AppContext,
  ): Promise<TranscriptRewindResponse> {
    return rewindTranscript(ctx, org, workspace, sessionId, input);
  }

  @Mutation(() => TranscriptCompactResponse, { description: 'Mark messages up to up_to_seq compacted and append the summary.' })
  @Rest('POST', `${WS}/:session_id/transcript/compact`, TAGS)
  async compact_session_transcript(
    @Arg('org', () => String) org: string,
    @Arg('workspace', () => String) workspace: string,
    @Arg('session_id', () => String, { description: "The session's id, or a unique prefix of at least 4 characters." }) sessionId: string,
    @Arg('input', () => TranscriptCompactRequest, { description: 'The last seq to compact and the summary.' }) input: TranscriptCompactRequest,
    @Ctx() ctx: AppContext,
  ): Promise<TranscriptCompactResponse> {
    const result = await compactTranscript(ctx, org, workspace, sessionId, input);
    return {
      session: toSession(result.session),
      messages: result.messages.map((row) => fromRow(TranscriptMessage, row)),
      compacted_count: result.compacted_count,
    };
  }

  // Fields the engine reads with their @Sql declarations; on the resolvers' path, through per-request loaders (one statement per batch).

  @Sql(SESSION_RELATIONS.project_key)
  @FieldResolver(() => String, { nullable: true })
  project_key(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<string> {
    return session.project_id ? ctx.loaders.sessionProjectById.load(session.project_id).then((row) => row?.key ?? null) : null;
  }

  @Sql(SESSION_RELATIONS.project_name)
  @FieldResolver(() => String, { nullable: true })
  project_name(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<string> {
    return session.project_id ? ctx.loaders.sessionProjectById.load(session.project_id).then((row) => row?.name ?? null) : null;
  }

  @Sql(SESSION_RELATIONS.group)
  @FieldResolver(() => SessionGroupSummary, { nullable: true })
  group(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<SessionGroupSummary> {
    if (!session.group_id) return null;
    return ctx.loaders.sessionGroupById.load(session.group_id).then((row) => (row ? toSessionGroup(row) : null));
  }

  @Sql(SESSION_RELATIONS.owner)
  @FieldResolver(() => SessionCreatorResponse, { nullable: true })
  created_by(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<SessionCreatorResponse> {
    return ctx.loaders.userById.load(session.user_id).then((user) => (user ? fromRow(SessionCreatorResponse, user) : null));
  }

  @Sql(SESSION_RELATIONS.shared_by)
  @FieldResolver(() => SessionCreatorResponse, { nullable: true })
  shared_by(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<SessionCreatorResponse> {
    if (!session.shared_by_id) return null;
    return ctx.loaders.userById.load(session.shared_by_id).then((user) => (user ? fromRow(SessionCreatorResponse, user) : null));
  }

  // A usage object aggregates the session's messages: priced above a plain object (bench: limits).
  @Sql(SESSION_RELATIONS.usage)
  @FieldResolver(() => SessionUsageResponse, { complexity: withBaseCost(USAGE_COST) })
  usage(@Root() session: SessionResponse, @Ctx() ctx: AppContext): SessionUsageResponse | Promise<SessionUsageResponse> {
    return ctx.loaders.sessionStats.load(session.id).then((stats) => stats.usage);
  }

  @Sql(SESSION_RELATIONS.recent_message_count)
  @FieldResolver(() => Int, {
    nullable: true,
    description: 'Messages of the last 24 hours, at most 25 (derived when read); null without transcript messages.',
  })
  recent_message_count(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<number> {
    return ctx.loaders.sessionStats.load(session.id).then((stats) => stats.recent_message_count);
  }

  // GraphQL-only navigation (kept out of REST replies).

  @Sql(SESSION_RELATIONS.owner)
  @FieldResolver(() => SessionCreatorResponse, { nullable: true, description: 'The owner (same as created_by).' })
  @Extensions({ graphqlOnly: true })
  creator(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<SessionCreatorResponse> {
    return this.created_by(session, ctx);
  }

  @Sql(SESSION_RELATIONS.project)
  @FieldResolver(() => ProjectResponse, { nullable: true, description: 'The project of the session.' })
  @Extensions({ graphqlOnly: true })
  project(@Root() session: SessionResponse, @Ctx() ctx: AppContext): Nullable<ProjectResponse> {
    if (!session.project_id) return null;
    return ctx.loaders.sessionProjectById.load(session.project_id).then((row) => (row ? toProject(row) : null));
  }

  @FieldResolver(() => [TranscriptMessage], { description: 'Transcript messages in seq order (non-compacted unless include_compacted).' })
  @Extensions({ graphqlOnly: true })
  async messages(
    @Root() session: SessionResponse,
    @ChildLimit(100, { max: 1000 }) limit: number,
    @Arg('include_compacted', () => Boolean, { defaultValue: false, description: 'Include compacted messages.' }) includeCompacted: boolean,
    @Ctx() ctx: AppContext,
  ): Promise<TranscriptMessage[]> {
    const rows = await ctx.loaders.sessionMessages.load({
      session_id: session.id,
      include_compacted: includeCompacted,
      limit,
    });
    return rows.map((row) => fromRow(TranscriptMessage, row));
  }
}

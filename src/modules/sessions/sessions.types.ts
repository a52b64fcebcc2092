import { derived, expression, fromRow, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { JSONObjectScalar, JSONScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { SessionGroupSummary } from '../session-groups/session-groups.types';
import { MAX_APPEND_MESSAGES, MAX_TRANSCRIPT_PAGE } from './sessions.limits';
import { PageEnvelope, pageItems, TOP_VALUES } from '../../core/pagination';

export enum SessionOriginEnum {
  user = 'user',
  eval = 'eval',
  worker = 'worker',
}
registerEnumType(SessionOriginEnum, {
  name: 'SessionOrigin',
  description: 'Who writes the session: a user, an evaluation or a worker.',
  valuesConfig: {
    user: { description: 'Written by a user (default).' },
    eval: { description: 'Written by an evaluation.' },
    worker: { description: 'Written by a worker.' },
  },
});

export enum SessionVisibilityEnum {
  private = 'private',
  workspace = 'workspace',
}
registerEnumType(SessionVisibilityEnum, {
  name: 'SessionVisibility',
  description: 'Who can see a session.',
  valuesConfig: {
    private: { description: 'Only its owner (default at creation).' },
    workspace: { description: 'Every member of the workspace; a session can go from private to workspace but not back.' },
  },
});

export enum SessionFrozenByEnum {
  evaluation = 'evaluation',
  user = 'user',
}
registerEnumType(SessionFrozenByEnum, {
  name: 'SessionFrozenBy',
  description: 'What froze a session.',
  valuesConfig: {
    evaluation: { description: 'Frozen by an evaluation.' },
    user: { description: 'Frozen by its owner.' },
  },
});

export enum SessionArchivedScope {
  active = 'active',
  archived = 'archived',
  any = 'any',
}
registerEnumType(SessionArchivedScope, {
  name: 'SessionArchivedScope',
  description: 'Which sessions a list or facet covers.',
  valuesConfig: {
    active: { description: 'Sessions that are not archived (default).' },
    archived: { description: 'Archived sessions only.' },
    any: { description: 'Archived and non-archived sessions.' },
  },
});

export enum SessionSortBy {
  updated_at = 'updated_at',
  last_message_at = 'last_message_at',
  created_at = 'created_at',
  message_count = 'message_count',
}
registerEnumType(SessionSortBy, {
  name: 'SessionSortBy',
  description: 'Order of a session list (ties broken by id).',
  valuesConfig: {
    updated_at: { description: 'By last update time (default).' },
    last_message_at: { description: 'By the time of the last transcript message.' },
    created_at: { description: 'By creation time.' },
    message_count: { description: 'By number of messages.' },
  },
});

export enum SortDirection {
  asc = 'asc',
  desc = 'desc',
}
registerEnumType(SortDirection, {
  name: 'SortDirection',
  description: 'Sort direction.',
  valuesConfig: {
    asc: { description: 'Ascending.' },
    desc: { description: 'Descending (default).' },
  },
});

@ObjectType('SessionCreatorResponse', { description: 'A denormalised view of a user (created_by, shared_by).' })
export class SessionCreatorResponse {
  @Sql()
  @Field(() => String, { description: "The user's e-mail address." })
  email: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The user's full name; null when not given." })
  full_name: string | null;

  @Sql()
  @Field(() => UUIDScalar, { description: "The user's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: "The user's username." })
  username: string;
}

@ObjectType('SessionUsageResponse', {
  description: 'Summed at read time from per-message usage: total_* over every message, current_* over non-compacted ones.',
})
export class SessionUsageResponse {
  @Sql()
  @Field(() => Int, { description: 'Number of compactions of the transcript.' })
  compaction_count: number;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Cache-creation input tokens over non-compacted messages.' })
  current_cache_creation_input_tokens: number;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Cache-read input tokens over non-compacted messages.' })
  current_cache_read_input_tokens: number;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Null when no message reported a cost; 0 when every costed message is compacted.' })
  current_cost_usd: number | null;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Input tokens over non-compacted messages.' })
  current_input_tokens: number;

  @Sql()
  @Field(() => Int, { description: 'Non-compacted messages (the transcript subset).' })
  current_message_count: number;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Output tokens over non-compacted messages.' })
  current_output_tokens: number;

  @Sql()
  @Field(() => Int, { description: 'Tool calls over non-compacted messages.' })
  current_tool_call_count: number;

  @Sql()
  @Field(() => TokenCountScalar, { nullable: true, description: 'Input tokens of the newest message with usage; null when none.' })
  last_generation_input_tokens: number | null;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Cache-creation input tokens over every message.' })
  total_cache_creation_input_tokens: number;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Cache-read input tokens over every message.' })
  total_cache_read_input_tokens: number;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Null when no message reported a cost.' })
  total_cost_usd: number | null;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Input tokens over every message.' })
  total_input_tokens: number;

  @Sql()
  @Field(() => Int, { description: 'Lifetime count, compacted messages included.' })
  total_message_count: number;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Output tokens over every message.' })
  total_output_tokens: number;

  @Sql()
  @Field(() => Int, { description: 'Tool calls over every message.' })
  total_tool_call_count: number;
}

@ObjectType('SessionResponse', { description: 'A chat session.' })
export class SessionResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The session's id (chosen by the client when first saved)." })
  id: string;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The agent that ran the session; null when not given.' })
  agent: string | null;

  @Sql()
  @Field(() => String, { description: 'The model the session uses.' })
  model: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The session's title; null when none." })
  title: string | null;

  @Sql()
  @Field(() => SessionOriginEnum, { description: 'Who writes the session: a user, an evaluation or a worker (default `user`).' })
  origin: SessionOriginEnum;

  @Sql()
  @Field(() => SessionVisibilityEnum, { description: 'Who can see the session.' })
  visibility: SessionVisibilityEnum;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the workspace the session belongs to.' })
  workspace_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the creating user (the owner).' })
  user_id: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the project the session belongs to; null when none.' })
  project_id: string | null;

  @Field(() => String, { nullable: true, description: "Key of the session's project; null when it has none." })
  project_key?: string | null;

  @Field(() => String, { nullable: true, description: "Name of the session's project; null when it has none." })
  project_name?: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, as given by the client (not checked); null when none.' })
  runtime_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the session group the session belongs to; null when none.' })
  group_id: string | null;

  @Field(() => SessionGroupSummary, { nullable: true, description: 'The session group the session belongs to; null when none.' })
  group?: SessionGroupSummary | null;

  @Sql()
  @Field(() => JSONObjectScalar, { description: 'Label key → list of values.' })
  labels: Record<string, string[]>;

  @Sql()
  @Field(() => Int, { description: 'Number of messages: as saved by the client, plus every appended transcript message.' })
  message_count: number;

  @Field(() => Int, { nullable: true, description: 'Messages in the last 24 hours, at most 25 (derived when read); null without transcript messages.' })
  recent_message_count?: number | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The last message, cut to 200 characters.' })
  preview_text: string | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the last transcript message was appended; null before the first.' })
  last_message_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the session was archived; null when it is not archived.' })
  archived_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the session was frozen (it then accepts no transcript writes); null when not frozen.' })
  frozen_at: Date | null;

  @Sql()
  @Field(() => SessionFrozenByEnum, { nullable: true, description: 'What froze the session; null when not frozen.' })
  frozen_by: SessionFrozenByEnum | null;

  @Field(() => SessionCreatorResponse, { nullable: true, description: 'The user who created (and owns) the session; null when that account no longer exists.' })
  created_by?: SessionCreatorResponse | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the session was shared with the workspace; null while private.' })
  shared_at: Date | null;

  @Field(() => SessionCreatorResponse, { nullable: true, description: "The user who shared the session with the workspace (`id` is the sharer's id); null while private." })
  shared_by?: SessionCreatorResponse | null;

  @Field(() => SessionUsageResponse, { description: "Token, cost and tool-call usage summed from the transcript's messages at read time." })
  usage?: SessionUsageResponse;

  // Given only by the session read when asked (its `limit`/`after_sequence`, which then runs the resolvers): null in every other reply.
  // Priced as one element here; the `session` query multiplies by its `limit` when it asks for events.
  @Sql(expression(() => 'NULL::json'))
  @Field(() => [TranscriptMessage], {
    nullable: true,
    description:
      'Transcript events (the non-compacted messages) after `after_sequence`, at most `limit`, in seq order: only on the `session` read when it is given either argument; null otherwise.',
    complexity: ({ childComplexity }) => 1 + childComplexity,
  })
  @MaxItems(() => MAX_TRANSCRIPT_PAGE)
  events?: TranscriptMessage[] | null;

  /** Not exposed: the sharer's id, resolved into `shared_by`. */
  shared_by_id: string | null;
}

@ObjectType('SessionListResponse', { description: 'One page of sessions.' })
export class SessionListResponse extends PageEnvelope {
  @Sql(pageItems('sessions'))
  @Field(() => [SessionResponse], { description: 'The sessions of this page.' })
  @PageItems()
  sessions: SessionResponse[];

}

@ObjectType('SessionDeleteResponse', { description: 'The result of deleting a session.' })
export class SessionDeleteResponse {
  @Field(() => UUIDScalar, { description: "The deleted session's id." })
  id: string;

  @Field(() => Boolean, { description: 'Always true.' })
  deleted: boolean;
}

@ObjectType('LabelFacetEntry', { description: 'One value of a facet with the number of sessions that have it.' })
export class LabelFacetEntry {
  @Field(() => Int, { description: 'Number of matching sessions with this value.' })
  count: number;

  @Field(() => String, { description: 'The value.' })
  value: string;
}

@ObjectType('UserFacetEntry', { description: 'A session owner with the number of their matching sessions.' })
export class UserFacetEntry {
  @Field(() => Int, { description: 'Number of matching sessions the user owns.' })
  count: number;

  @Field(() => String, { description: "The user's e-mail address." })
  email: string;

  @Field(() => String, { nullable: true, description: "The user's full name; null when not given." })
  full_name: string | null;

  @Field(() => UUIDScalar, { description: "The user's id." })
  id: string;

  @Field(() => String, { description: "The user's username." })
  username: string;
}

@ObjectType('SessionFacetsResponse', { description: 'Per-dimension counts over the sessions the caller can see.' })
export class SessionFacetsResponse {
  @Field(() => [LabelFacetEntry], { description: 'Distinct agent values, by count descending then value; sessions without an agent are left out.' })
  @MaxItems(TOP_VALUES)
  agents: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Distinct model values, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  models: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: 'Distinct origin values, by count descending then value.' })
  @MaxItems(TOP_VALUES)
  origins: LabelFacetEntry[];

  @Field(() => [UserFacetEntry], { description: 'Distinct session owners, by count descending then username.' })
  @MaxItems(TOP_VALUES)
  users: UserFacetEntry[];

  @Field(() => JSONObjectScalar, { description: 'Label key → list of LabelFacetEntry; keys without matches omitted.' })
  labels: Record<string, LabelFacetEntry[]>;

  @Field(() => [LabelFacetEntry], { description: "Distinct kinds of the sessions' groups, with visible session counts." })
  @MaxItems(TOP_VALUES)
  group_kinds: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry], { description: "Distinct statuses of the sessions' groups, with visible session counts." })
  @MaxItems(TOP_VALUES)
  group_statuses: LabelFacetEntry[];
}

@ObjectType('TranscriptToolCall', { description: 'A tool call made by a message.' })
export class TranscriptToolCall {
  @Field(() => String, { description: "The tool call's id, as given by the client." })
  id: string;

  @Field(() => String, { description: 'Name of the called tool.' })
  name: string;

  @Field(() => JSONScalar, { nullable: true, description: 'A JSON string or an object, returned as given.' })
  arguments: unknown;
}

/** A message's token count column, 0 when it has none. */
const COUNT = (name: string) => derived((row) => (row[name] == null ? 0 : Number(row[name])));

@ObjectType('TranscriptMessageUsage', { description: 'Token usage and cost reported with a message.' })
export class TranscriptMessageUsage {
  @Sql(COUNT('input_tokens'))
  @Field(() => TokenCountScalar, { description: 'Input tokens (0 when not reported).' })
  input_tokens: number;

  @Sql(COUNT('output_tokens'))
  @Field(() => TokenCountScalar, { description: 'Output tokens (0 when not reported).' })
  output_tokens: number;

  @Sql(COUNT('cache_creation_input_tokens'))
  @Field(() => TokenCountScalar, { description: 'Cache-creation input tokens (0 when not reported).' })
  cache_creation_input_tokens: number;

  @Sql(COUNT('cache_read_input_tokens'))
  @Field(() => TokenCountScalar, { description: 'Cache-read input tokens (0 when not reported).' })
  cache_read_input_tokens: number;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Cost in US dollars; null when not reported.' })
  cost_usd: number | null;
}

@ObjectType('TranscriptMessage', { description: 'One message of a session transcript.' })
export class TranscriptMessage {
  @Sql()
  @Field(() => String, { description: "The message's id: the client's, or a generated UUID." })
  id: string;

  @Sql()
  @Field(() => Int, { description: 'Position in the transcript, from 1.' })
  seq: number;

  @Sql()
  @Field(() => String, { description: '`user`, `assistant`, `system` or `tool`.' })
  role: string;

  @Sql()
  @Field(() => JSONScalar, { nullable: true, description: 'Text or structured content (JSON), as appended; null for e.g. a message that only carries tool calls.' })
  content: unknown;

  @Sql(derived((row) => row.tool_calls ?? null))
  @Field(() => [TranscriptToolCall], { nullable: true, description: 'Tool calls the message made; null when none.' })
  @MaxItems(NOMINAL_MAX_ITEMS)
  tool_calls: TranscriptToolCall[] | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Id of the tool call this message answers (for a `tool` message); null otherwise.' })
  tool_call_id: string | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata appended with the message; null when none.' })
  metadata: Record<string, unknown> | null;

  @Sql(derived((row) => (row.has_usage ? fromRow(TranscriptMessageUsage, row) : null)))
  @Field(() => TranscriptMessageUsage, { nullable: true, description: 'Usage reported with the message; null when none.' })
  usage: TranscriptMessageUsage | null;

  @Sql()
  @Field(() => Boolean, { description: 'True for a compaction summary.' })
  is_summary: boolean;

  @Sql(derived((row) => row.compacted_at != null))
  @Field(() => Boolean, { description: 'True once the message is compacted (then left out of reads unless compacted messages are asked for).' })
  compacted: boolean;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the message was appended.' })
  created_at: Date;
}

@ObjectType('TranscriptAppendResponse', { description: 'The session after an append and the appended messages.' })
export class TranscriptAppendResponse {
  @Field(() => SessionResponse, { description: 'The session after the append.' })
  session: SessionResponse;

  @Field(() => [TranscriptMessage], { description: 'The appended messages, in seq order.' })
  @MaxItems(() => MAX_APPEND_MESSAGES)
  messages: TranscriptMessage[];
}

@ObjectType('TranscriptResponse', { description: "A page of a session's transcript." })
export class TranscriptResponse {
  @Field(() => SessionResponse, { description: 'The session.' })
  session: SessionResponse;

  @Field(() => [TranscriptMessage], { description: 'Messages in seq order.' })
  @PageItems()
  messages: TranscriptMessage[];

  @Field(() => Boolean, { description: 'True when messages after this page exist.' })
  has_more: boolean;
}

@ObjectType('TranscriptRewindResponse', { description: 'What a rewind deleted (decisions §14).' })
export class TranscriptRewindResponse {
  @Field(() => Int, { description: 'Messages deleted: the user message at target_seq and every later one.' })
  deleted_count: number;

  @Field(() => Int, { description: 'The seq rewound to; the next appended message takes it.' })
  target_seq: number;

  @Field(() => JSONScalar, { nullable: true, description: "The rewound user message's content, for the client to offer again." })
  restored_content: unknown;
}

@ObjectType('TranscriptCompactResponse', { description: 'The session after a compaction and the summary message.' })
export class TranscriptCompactResponse {
  @Field(() => SessionResponse, { description: 'The session after the compaction.' })
  session: SessionResponse;

  @Field(() => [TranscriptMessage], { description: 'The appended summary message.' })
  @MaxItems(1)
  messages: TranscriptMessage[];

  @Field(() => Int, { description: 'Messages newly marked compacted.' })
  compacted_count: number;
}

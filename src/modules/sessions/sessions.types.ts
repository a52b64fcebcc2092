import { derived, fromRow, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxItems, NOMINAL_MAX_ITEMS, PageItems } from '../../core/graphql-decorators';
import { JSONObjectScalar, JSONScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { SessionGroupSummary } from '../session-groups/session-groups.types';
import { MAX_APPEND_MESSAGES } from './sessions.inputs';
import { PageEnvelope, pageItems } from '../../core/pagination';

export enum SessionOriginEnum {
  user = 'user',
  eval = 'eval',
  worker = 'worker',
}
registerEnumType(SessionOriginEnum, { name: 'SessionOrigin', description: 'Who writes the session: a user, an evaluation or a worker.' });

export enum SessionVisibilityEnum {
  private = 'private',
  workspace = 'workspace',
}
registerEnumType(SessionVisibilityEnum, { name: 'SessionVisibility' });

export enum SessionFrozenByEnum {
  evaluation = 'evaluation',
  user = 'user',
}
registerEnumType(SessionFrozenByEnum, { name: 'SessionFrozenBy' });

export enum SessionArchivedScope {
  active = 'active',
  archived = 'archived',
  any = 'any',
}
registerEnumType(SessionArchivedScope, { name: 'SessionArchivedScope', description: 'Which sessions a list or facet covers.' });

export enum SessionSortBy {
  updated_at = 'updated_at',
  last_message_at = 'last_message_at',
  created_at = 'created_at',
  message_count = 'message_count',
}
registerEnumType(SessionSortBy, { name: 'SessionSortBy' });

export enum SortDirection {
  asc = 'asc',
  desc = 'desc',
}
registerEnumType(SortDirection, { name: 'SortDirection' });

@ObjectType('SessionCreatorResponse', { description: 'A denormalised view of a user (created_by, shared_by).' })
export class SessionCreatorResponse {
  @Sql()
  @Field(() => String)
  email: string;

  @Sql()
  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String)
  username: string;
}

@ObjectType('SessionUsageResponse', {
  description: 'Summed at read time from per-message usage: total_* over every message, current_* over non-compacted ones.',
})
export class SessionUsageResponse {
  @Sql()
  @Field(() => Int)
  compaction_count: number;

  @Sql()
  @Field(() => TokenCountScalar)
  current_cache_creation_input_tokens: number;

  @Sql()
  @Field(() => TokenCountScalar)
  current_cache_read_input_tokens: number;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Null when no message reported a cost; 0 when every costed message is compacted.' })
  current_cost_usd: number | null;

  @Sql()
  @Field(() => TokenCountScalar)
  current_input_tokens: number;

  @Sql()
  @Field(() => Int, { description: 'Non-compacted messages (the transcript subset).' })
  current_message_count: number;

  @Sql()
  @Field(() => TokenCountScalar)
  current_output_tokens: number;

  @Sql()
  @Field(() => Int)
  current_tool_call_count: number;

  @Sql()
  @Field(() => TokenCountScalar, { nullable: true, description: 'Input tokens of the newest message with usage; null when none.' })
  last_generation_input_tokens: number | null;

  @Sql()
  @Field(() => TokenCountScalar)
  total_cache_creation_input_tokens: number;

  @Sql()
  @Field(() => TokenCountScalar)
  total_cache_read_input_tokens: number;

  @Sql()
  @Field(() => Float, { nullable: true, description: 'Null when no message reported a cost.' })
  total_cost_usd: number | null;

  @Sql()
  @Field(() => TokenCountScalar)
  total_input_tokens: number;

  @Sql()
  @Field(() => Int, { description: 'Lifetime count, compacted messages included.' })
  total_message_count: number;

  @Sql()
  @Field(() => TokenCountScalar)
  total_output_tokens: number;

  @Sql()
  @Field(() => Int)
  total_tool_call_count: number;
}

@ObjectType('SessionResponse', { description: 'A chat session.' })
export class SessionResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String, { nullable: true })
  agent: string | null;

  @Sql()
  @Field(() => String)
  model: string;

  @Sql()
  @Field(() => String, { nullable: true })
  title: string | null;

  @Sql()
  @Field(() => SessionOriginEnum)
  origin: SessionOriginEnum;

  @Sql()
  @Field(() => SessionVisibilityEnum)
  visibility: SessionVisibilityEnum;

  @Sql()
  @Field(() => UUIDScalar)
  workspace_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the creating user (the owner).' })
  user_id: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  project_id: string | null;

  @Field(() => String, { nullable: true })
  project_key?: string | null;

  @Field(() => String, { nullable: true })
  project_name?: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  runtime_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  group_id: string | null;

  @Field(() => SessionGroupSummary, { nullable: true })
  group?: SessionGroupSummary | null;

  @Sql()
  @Field(() => JSONObjectScalar, { description: 'Label key → list of values.' })
  labels: Record<string, string[]>;

  @Sql()
  @Field(() => Int)
  message_count: number;

  @Field(() => Int, { nullable: true, description: 'Messages in the last 24 hours, at most 25 (derived when read); null without transcript messages.' })
  recent_message_count?: number | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The last message, cut to 200 characters.' })
  preview_text: string | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  last_message_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  archived_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  frozen_at: Date | null;

  @Sql()
  @Field(() => SessionFrozenByEnum, { nullable: true })
  frozen_by: SessionFrozenByEnum | null;

  @Field(() => SessionCreatorResponse, { nullable: true })
  created_by?: SessionCreatorResponse | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  shared_at: Date | null;

  @Field(() => SessionCreatorResponse, { nullable: true })
  shared_by?: SessionCreatorResponse | null;

  @Field(() => SessionUsageResponse)
  usage?: SessionUsageResponse;

  /** Not exposed: the sharer's id, resolved into `shared_by`. */
  shared_by_id: string | null;
}

@ObjectType('SessionListResponse')
export class SessionListResponse extends PageEnvelope {
  @Sql(pageItems('sessions'))
  @Field(() => [SessionResponse])
  @PageItems()
  sessions: SessionResponse[];

}

@ObjectType('SessionDeleteResponse')
export class SessionDeleteResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => Boolean)
  deleted: boolean;
}

@ObjectType('LabelFacetEntry')
export class LabelFacetEntry {
  @Field(() => Int)
  count: number;

  @Field(() => String)
  value: string;
}

@ObjectType('UserFacetEntry')
export class UserFacetEntry {
  @Field(() => Int)
  count: number;

  @Field(() => String)
  email: string;

  @Field(() => String, { nullable: true })
  full_name: string | null;

  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String)
  username: string;
}

/** Values each facet list keeps (its most frequent; sessions.sql). */
export const FACET_MAX_VALUES = 100;

@ObjectType('SessionFacetsResponse', { description: 'Per-dimension counts over the sessions the caller can see.' })
export class SessionFacetsResponse {
  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  agents: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  models: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  origins: LabelFacetEntry[];

  @Field(() => [UserFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  users: UserFacetEntry[];

  @Field(() => JSONObjectScalar, { description: 'Label key → list of LabelFacetEntry; keys without matches omitted.' })
  labels: Record<string, LabelFacetEntry[]>;

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  group_kinds: LabelFacetEntry[];

  @Field(() => [LabelFacetEntry])
  @MaxItems(FACET_MAX_VALUES)
  group_statuses: LabelFacetEntry[];
}

@ObjectType('TranscriptToolCall')
export class TranscriptToolCall {
  @Field(() => String)
  id: string;

  @Field(() => String)
  name: string;

  @Field(() => JSONScalar, { nullable: true, description: 'A JSON string or an object, returned as given.' })
  arguments: unknown;
}

/** A message's token count column, 0 when it has none. */
const COUNT = (name: string) => derived((row) => (row[name] == null ? 0 : Number(row[name])));

@ObjectType('TranscriptMessageUsage')
export class TranscriptMessageUsage {
  @Sql(COUNT('input_tokens'))
  @Field(() => TokenCountScalar)
  input_tokens: number;

  @Sql(COUNT('output_tokens'))
  @Field(() => TokenCountScalar)
  output_tokens: number;

  @Sql(COUNT('cache_creation_input_tokens'))
  @Field(() => TokenCountScalar)
  cache_creation_input_tokens: number;

  @Sql(COUNT('cache_read_input_tokens'))
  @Field(() => TokenCountScalar)
  cache_read_input_tokens: number;

  @Sql()
  @Field(() => Float, { nullable: true })
  cost_usd: number | null;
}

@ObjectType('TranscriptMessage', { description: 'One message of a session transcript.' })
export class TranscriptMessage {
  @Sql()
  @Field(() => String)
  id: string;

  @Sql()
  @Field(() => Int, { description: 'Position in the transcript, from 1.' })
  seq: number;

  @Sql()
  @Field(() => String)
  role: string;

  @Sql()
  @Field(() => JSONScalar, { nullable: true })
  content: unknown;

  @Sql(derived((row) => row.tool_calls ?? null))
  @Field(() => [TranscriptToolCall], { nullable: true })
  @MaxItems(NOMINAL_MAX_ITEMS)
  tool_calls: TranscriptToolCall[] | null;

  @Sql()
  @Field(() => String, { nullable: true })
  tool_call_id: string | null;

  @Sql()
  @Field(() => JSONObjectScalar, { nullable: true })
  metadata: Record<string, unknown> | null;

  @Sql(derived((row) => (row.has_usage ? fromRow(TranscriptMessageUsage, row) : null)))
  @Field(() => TranscriptMessageUsage, { nullable: true })
  usage: TranscriptMessageUsage | null;

  @Sql()
  @Field(() => Boolean, { description: 'True for a compaction summary.' })
  is_summary: boolean;

  @Sql(derived((row) => row.compacted_at != null))
  @Field(() => Boolean)
  compacted: boolean;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;
}

@ObjectType('TranscriptAppendResponse')
export class TranscriptAppendResponse {
  @Field(() => SessionResponse)
  session: SessionResponse;

  @Field(() => [TranscriptMessage])
  @MaxItems(() => MAX_APPEND_MESSAGES)
  messages: TranscriptMessage[];
}

@ObjectType('TranscriptResponse')
export class TranscriptResponse {
  @Field(() => SessionResponse)
  session: SessionResponse;

  @Field(() => [TranscriptMessage])
  @PageItems()
  messages: TranscriptMessage[];

  @Field(() => Boolean)
  has_more: boolean;
}

@ObjectType('TranscriptCompactResponse')
export class TranscriptCompactResponse {
  @Field(() => SessionResponse)
  session: SessionResponse;

  @Field(() => [TranscriptMessage], { description: 'The appended summary message.' })
  @MaxItems(1)
  messages: TranscriptMessage[];

  @Field(() => Int, { description: 'Messages newly marked compacted.' })
  compacted_count: number;
}

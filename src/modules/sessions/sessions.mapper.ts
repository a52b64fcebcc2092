import type { RecordOf, SessionMessageModel, SessionModel } from '../../../models';
import { compactJson } from '../../db/json-sql';
import { userIdentityJson } from '../accounts/accounts.mapper';
import { sessionGroupJson } from '../session-groups/session-groups.mapper';
import { SESSION_SQL } from './sessions.graphql-sql';
import { usageJson } from './session-usage';
import { sessionJoinSql } from './session-relations';
import {
  SessionResponse,
  type SessionFrozenByEnum,
  type SessionOriginEnum,
  type SessionVisibilityEnum,
  type TranscriptMessage,
} from './sessions.types';

/**
 * Row → GraphQL type. project_key/project_name, group, created_by, shared_by,
 * recent_message_count and usage resolve through loaders (sessions.resolver.ts).
 * An instance of the class, not a plain object: type-graphql copies a field
 * resolver's parent into its class on every call unless it already is one
 * (nine resolvers on each session of a 100-session dashboard).
 */
export function toSession(row: RecordOf<SessionModel>): SessionResponse {
  return Object.assign(new SessionResponse(), {
    id: row.id,
    agent: row.agent,
    model: row.model,
    title: row.title,
    origin: row.origin as SessionOriginEnum,
    visibility: row.visibility as SessionVisibilityEnum,
    workspace_id: row.workspace_id,
    user_id: row.user_id,
    project_id: row.project_id,
    runtime_id: row.runtime_id,
    group_id: row.group_id,
    labels: row.labels ?? {},
    message_count: row.message_count,
    preview_text: row.preview_text,
    last_message_at: row.last_message_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
    frozen_at: row.frozen_at,
    frozen_by: row.frozen_by as SessionFrozenByEnum | null,
    shared_at: row.shared_at,
    shared_by_id: row.shared_by,
  });
}

/**
 * toSession and the session's field resolvers in SQL (REST session list,
 * @RestJson): one SessionResponse as JSON from session `s` with the joins of
 * sessionJoinSql({ relations: true, usage: true }) beside it (project `p` and
 * group `g` of the session's own workspace, owner `u`, sharer `su`, usage
 * `st` and last generation `lg`), fields in the order of the route's document.
 */
export function sessionJson(): string {
  return (json ??= buildSessionJson());
}

/** The joins sessionJson reads from. */
export const SESSION_JSON_JOINS = sessionJoinSql({ relations: true, usage: true });

let json: string | undefined;
function buildSessionJson(): string {
  const usage = usageJson('st', 'lg');
  const joined: Record<string, string> = {
    project_key: 'p.key',
    project_name: 'p.name',
    group: sessionGroupJson('g'),
    recent_message_count: usage.recent,
    created_by: userIdentityJson('u'),
    shared_by: userIdentityJson('su'),
    usage: usage.usage,
  };
  const own: Record<string, { sql(row: string): string }> = SESSION_SQL;
  return compactJson(
    REST_ORDER.map((name) => `${joined[name] ?? own[name].sql('s')} AS "${name}"`).join(', '),
  );
}

/** The fields of a REST session reply, in the order of the route's document. */
const REST_ORDER = [
  'id', 'agent', 'model', 'title', 'origin', 'visibility', 'workspace_id', 'user_id', 'project_id', 'project_key', 'project_name',
  'runtime_id', 'group_id', 'group', 'labels', 'message_count', 'recent_message_count', 'preview_text', 'last_message_at',
  'created_at', 'updated_at', 'archived_at', 'frozen_at', 'frozen_by', 'created_by', 'shared_at', 'shared_by', 'usage',
];

function count(value: string | number | null): number {
  return value == null ? 0 : Number(value);
}

export function toTranscriptMessage(row: RecordOf<SessionMessageModel>): TranscriptMessage {
  return {
    id: row.id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    tool_calls: row.tool_calls ?? null,
    tool_call_id: row.tool_call_id,
    metadata: row.metadata,
    usage: row.has_usage
      ? {
          input_tokens: count(row.input_tokens),
          output_tokens: count(row.output_tokens),
          cache_creation_input_tokens: count(row.cache_creation_input_tokens),
          cache_read_input_tokens: count(row.cache_read_input_tokens),
          cost_usd: row.cost_usd,
        }
      : null,
    is_summary: row.is_summary,
    compacted: row.compacted_at != null,
    created_at: row.created_at,
  };
}

import type { RecordOf, SessionMessageModel, SessionModel } from '../../../models';
import { compactJson, jsonTimestamp } from '../../db/json-sql';
import { userIdentityJson } from '../accounts/accounts.mapper';
import { sessionGroupJson } from '../session-groups/session-groups.mapper';
import { usageJson } from './session-usage';
import { sessionJoinSql } from './session-relations';
import type {
  SessionFrozenByEnum,
  SessionOriginEnum,
  SessionResponse,
  SessionVisibilityEnum,
  TranscriptMessage,
} from './sessions.types';

/**
 * Row → GraphQL type. project_key/project_name, group, created_by, shared_by,
 * recent_message_count and usage resolve through loaders (sessions.resolver.ts).
 */
export function toSession(row: RecordOf<SessionModel>): SessionResponse {
  return {
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
  };
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
  return compactJson(`
    s.id AS id, s.agent AS agent, s.model AS model, s.title AS title, s.origin AS origin, s.visibility AS visibility,
    s.workspace_id AS workspace_id, s.user_id AS user_id, s.project_id AS project_id, p.key AS project_key, p.name AS project_name,
    s.runtime_id AS runtime_id, s.group_id AS group_id, ${sessionGroupJson('g')} AS "group", s.labels AS labels,
    s.message_count AS message_count, ${usage.recent} AS recent_message_count, s.preview_text AS preview_text,
    ${jsonTimestamp('s.last_message_at')} AS last_message_at, ${jsonTimestamp('s.created_at')} AS created_at,
    ${jsonTimestamp('s.updated_at')} AS updated_at, ${jsonTimestamp('s.archived_at')} AS archived_at,
    ${jsonTimestamp('s.frozen_at')} AS frozen_at, s.frozen_by AS frozen_by, ${userIdentityJson('u')} AS created_by,
    ${jsonTimestamp('s.shared_at')} AS shared_at, ${userIdentityJson('su')} AS shared_by, ${usage.usage} AS usage`);
}

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

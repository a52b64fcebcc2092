import type { RecordOf, SessionMessageModel, SessionModel } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { SessionResponse, type TranscriptMessage } from './sessions.types';

/**
 * Row → GraphQL type: the columns its fields declare (@Sql), and the sharer's
 * key its shared_by resolver reads. An instance of the class, not a plain
 * object: type-graphql copies a field resolver's parent into its class on
 * every call unless it already is one.
 */
export function toSession(row: RecordOf<SessionModel>): SessionResponse {
  return Object.assign(fromRow(SessionResponse, row), { shared_by_id: row.shared_by });
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

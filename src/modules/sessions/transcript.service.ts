import crypto from 'node:crypto';
import { Op, type Transaction } from 'sequelize';
import { SessionMessageModel, type RecordOf, type SessionModel } from '../../../models';
import { config } from '../../config/config';
import type { AppContext } from '../../core/context';
import { ConflictError, validationFailure } from '../../core/errors';
import type { WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { loadedBytes, loadWithinReply, withinBudgetSql } from '../../core/reply-budget';
import { requireOwnerWrite } from './session.policy';
import { messageRows } from './sessions.sql';
import { findSession, resolveSessionWorkspace } from './session-ref';
import { forgetSession } from './sessions.service';
import { addToGroupRollup, recountGroups } from '../session-groups/group-rollups';
import { asksForEvents, TRANSCRIPT_PAGE, type SessionEventsArgs, type TranscriptAppendRequest, type TranscriptCompactRequest, type TranscriptMessageInput, type TranscriptReadArgs, type TranscriptRewindRequest } from './sessions.inputs';
import { DEFAULT_TRANSCRIPT_PAGE } from './sessions.limits';

/**
 * Transcripts: messages appended under the session's row lock (gap-free
 * seq), compaction with a summary, and pages read in seq order.
 */
const PREVIEW_LENGTH = 200;

/** Readable text of a message's content (string, content blocks or JSON). */
export function contentText(content: unknown): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(contentText).filter(Boolean).join(' ');
  if (typeof content === 'object') {
    const text = (content as { text?: unknown }).text;
    if (typeof text === 'string') return text;
    return JSON.stringify(content);
  }
  return String(content);
}

function preview(messages: TranscriptMessageInput[]): string | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const text = contentText(messages[index].content).replace(/\s+/g, ' ').trim();
    if (text) return [...text].slice(0, PREVIEW_LENGTH).join('');
  }
  return null;
}

/** The session row, locked for the transaction, that the caller may write a transcript to. */
async function requireWritableTranscript(scope: WorkspaceScope, ref: string, transaction: Transaction): Promise<SessionModel> {
  const session = await findSession(scope, ref, transaction);
  requireOwnerWrite(scope, session);
  if (session.frozen_at) throw new ConflictError('The session is frozen and accepts no transcript writes');
  return session;
}

/**
 * Appends messages under the session's row lock (seq stays gap-free and
 * ordered) and maintains message_count, last_message_at, preview_text (and
 * the context when given) in one UPDATE … RETURNING, which also gives the
 * reply its session, then adds the messages to the group's counts. recent_message_count is derived at read time.
 * last_message_at (and updated_at) is the clock time of this write, taken
 * under the row lock, not the transaction's start (`now()`): an append that
 * waited for the lock behind a later-started one would otherwise set it back
 * in time; `greatest` keeps it from moving back if the clock does. The
 * group's last_activity_at takes the later of its value and this one.
 */
async function insertMessages(
  session: SessionModel,
  messages: TranscriptMessageInput[],
  options: { summary: boolean; context?: Record<string, unknown> | null },
  transaction: Transaction,
): Promise<{ session: RecordOf<SessionModel>; messages: SessionMessageModel[] }> {
  const rows = messages.map((message, index) => {
    const usage = message.usage ?? null;
    return {
      session_id: session.id,
      seq: session.last_seq + index + 1,
      organization_id: session.organization_id,
      id: message.id ?? crypto.randomUUID(),
      role: message.role,
      content: message.content ?? null,
      tool_calls: message.tool_calls?.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments ?? null })) ?? null,
      tool_call_id: message.tool_call_id ?? null,
      metadata: message.metadata ?? null,
      has_usage: usage != null,
      input_tokens: usage ? (usage.input_tokens ?? 0) : null,
      output_tokens: usage ? (usage.output_tokens ?? 0) : null,
      cache_creation_input_tokens: usage ? (usage.cache_creation_input_tokens ?? 0) : null,
      cache_read_input_tokens: usage ? (usage.cache_read_input_tokens ?? 0) : null,
      cost_usd: usage?.cost_usd ?? null,
      tool_call_count: message.tool_calls?.length ?? 0,
      is_summary: options.summary,
    };
  });
  const created = await SessionMessageModel.bulkCreate(rows, { transaction, returning: true });
  const withContext = options.context !== undefined;
  const { SESSION_MAX_TRANSCRIPT_BYTES: max, SESSION_MAX_MESSAGES: maxMessages } = config();
  const [updated] = await plainQuery<RecordOf<SessionModel>>(
    `UPDATE sessions SET
       last_seq = last_seq + $count,
       message_count = message_count + $count,
       transcript_bytes = transcript_bytes + b.bytes,
       last_message_at = greatest(last_message_at, w.at),
       preview_text = coalesce($preview, preview_text),
       context = CASE WHEN $with_context THEN $context::jsonb ELSE context END,
       updated_at = greatest(updated_at, w.at)
       FROM (SELECT clock_timestamp() AS at) w,
            (SELECT coalesce(sum(m.bytes), 0) AS bytes FROM session_messages m WHERE m.session_id = $id AND m.seq > $after) b
     WHERE id = $id AND transcript_bytes + b.bytes <= $max AND last_seq + $count <= $max_messages
     RETURNING sessions.*`,
    {
      id: session.id,
      count: rows.length,
      after: session.last_seq,
      max,
      max_messages: maxMessages,
      preview: preview(messages),
      with_context: withContext,
      context: withContext && options.context !== null ? JSON.stringify(options.context) : null,
    },
    { transaction },
  );
  // Past a limit the transaction rolls back: nothing of the append is kept. last_seq is the number of messages
  // stored (seqs run 1…last_seq; a rewind deletes a tail), where message_count is also the client's to set.
  if (!updated) {
    const limit = session.last_seq + rows.length > maxMessages ? `${maxMessages} messages (SESSION_MAX_MESSAGES)` : `${max} bytes (SESSION_MAX_TRANSCRIPT_BYTES)`;
    throw new ConflictError(`The transcript would hold more than ${limit}; rewind it or continue in a new session`);
  }
  if (updated.group_id) {
    const tokens = rows.reduce((sum, row) => sum + (row.has_usage ? (row.input_tokens ?? 0) + (row.output_tokens ?? 0) : 0), 0);
    await addToGroupRollup(updated.group_id, { messages: rows.length, tokens, activityAt: updated.last_message_at ?? undefined }, transaction);
  }
  return { session: updated, messages: created.sort((a, b) => a.seq - b.seq) };
}

export async function appendTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: TranscriptAppendRequest,
): Promise<{ session: RecordOf<SessionModel>; messages: SessionMessageModel[] }> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const result = await database().transaction(async (transaction) => {
    const session = await requireWritableTranscript(scope, ref, transaction);
    return insertMessages(session, input.messages, { summary: false, context: input.context }, transaction);
  });
  forgetSession(ctx, result.session);
  return result;
}

export async function compactTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: TranscriptCompactRequest,
): Promise<{ session: RecordOf<SessionModel>; messages: SessionMessageModel[]; compacted_count: number }> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const result = await database().transaction(async (transaction) => {
    const session = await requireWritableTranscript(scope, ref, transaction);
    if (input.up_to_seq > session.last_seq) {
      throw validationFailure(
        ['input', 'up_to_seq'],
        `Input should be less than or equal to ${session.last_seq} (the last seq of the transcript)`,
        'less_than_equal',
      );
    }
    // The summary is appended next, as seq last_seq + 1 (the session's row is locked).
    const [compacted] = await SessionMessageModel.update(
      { compacted_at: new Date(), compacted_by: session.last_seq + 1 },
      { where: { session_id: session.id, seq: { [Op.lte]: input.up_to_seq }, compacted_at: null }, transaction },
    );
    // Nothing left to compact (a retry, or a compaction that lost a race): a second summary would only inflate the counts.
    if (!compacted) throw new ConflictError(`The messages up to seq ${input.up_to_seq} are compacted already`);
    const appended = await insertMessages(session, [input.summary], { summary: true }, transaction);
    return { ...appended, compacted_count: compacted };
  });
  forgetSession(ctx, result.session);
  return result;
}

/**
 * The preview after a rewind: the text of the last remaining message with
 * text (as an append keeps it), read back a page of messages at a time.
 */
async function lastText(sessionId: string, transaction: Transaction): Promise<string> {
  const PAGE = 50;
  for (let before = Number.MAX_SAFE_INTEGER; ; ) {
    const page = await SessionMessageModel.findAll({ where: { session_id: sessionId, seq: { [Op.lt]: before } }, order: [['seq', 'DESC']], limit: PAGE, transaction });
    for (const message of page) {
      const text = contentText(message.content).replace(/\s+/g, ' ').trim();
      if (text) return text;
    }
    if (page.length < PAGE) return '';
    before = page[page.length - 1].seq;
  }
}

/**
 * Rewind (decisions §14): `from_seq` must be the seq of a user message; it
 * and every later message are deleted for good, under the session's row
 * lock, in one transaction with what follows them: message_count, last_seq
 * (the next append takes `from_seq` again, so seq stays gap-free),
 * last_message_at and preview_text from what remains, and the group's
 * roll-ups recounted. Usage is derived from the remaining messages.
 * Compactions whose summaries it deletes (made since `from_seq` was
 * appended, the rewound message itself when it is a summary) are undone with
 * it: the messages they compacted (`compacted_by`, their summary's seq) are
 * current again, as they were before. Frozen sessions are 409. The reply carries the rewound
 * message's content, for the client to offer again.
 */
export async function rewindTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: TranscriptRewindRequest,
): Promise<{ deleted_count: number; target_seq: number; restored_content: unknown }> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const result = await database().transaction(async (transaction) => {
    const session = await requireWritableTranscript(scope, ref, transaction);
    const target = await SessionMessageModel.findOne({ where: { session_id: session.id, seq: input.from_seq }, transaction });
    if (!target || target.role !== 'user') {
      throw validationFailure(['input', 'from_seq'], 'Input should be the seq of a user message of the transcript', 'value_error');
    }
    const deleted = await plainQuery<{ count: string | number; bytes: string | number }>(
      `WITH gone AS (DELETE FROM session_messages m WHERE m.session_id = $id AND m.seq >= $from RETURNING m.bytes)
       SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM gone`,
      { id: session.id, from: input.from_seq },
      { transaction },
    );
    const count = Number(deleted[0].count);
    await SessionMessageModel.update(
      { compacted_at: null, compacted_by: null },
      { where: { session_id: session.id, compacted_by: { [Op.gte]: input.from_seq } }, transaction },
    );
    const text = await lastText(session.id, transaction);
    const [updated] = await plainQuery<RecordOf<SessionModel>>(
      `UPDATE sessions SET
         last_seq = $from - 1,
         message_count = greatest(0, message_count - $count),
         transcript_bytes = greatest(0, transcript_bytes - $bytes),
         last_message_at = (SELECT max(m.created_at) FROM session_messages m WHERE m.session_id = $id),
         preview_text = $preview,
         updated_at = greatest(updated_at, clock_timestamp())
       WHERE id = $id
       RETURNING sessions.*`,
      { id: session.id, from: input.from_seq, count, bytes: deleted[0].bytes, preview: text ? [...text].slice(0, PREVIEW_LENGTH).join('') : null },
      { transaction },
    );
    // A rewind is rare and moves last_message_at back: the group is recounted (as for a deleted session), not given a delta.
    if (updated.group_id && count) await recountGroups([updated.group_id], transaction);
    return { session: updated, deleted_count: count, target_seq: input.from_seq, restored_content: target.content ?? null };
  });
  forgetSession(ctx, result.session);
  return { deleted_count: result.deleted_count, target_seq: result.target_seq, restored_content: result.restored_content };
}

export async function readTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  args: TranscriptReadArgs,
): Promise<{ session: SessionModel; messages: SessionMessageModel[]; has_more: boolean }> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const session = await findSession(scope, ref);
  const limit = args.limit ?? TRANSCRIPT_PAGE.fallback;
  const { messages, more } = await messagesAfter(ctx, session.id, args.after_seq ?? 0, limit, Boolean(args.include_compacted));
  return { session, messages, has_more: more };
}

/**
 * Up to `limit` messages of a session after seq `after`, in seq order;
 * compacted ones only when asked (every read of a transcript), and whether
 * more follow them (`more`: asked of the index after the last one, so no
 * message past the page is read). Their sizes (`session_messages.bytes`)
 * count against what the request may load for its reply (loadWithinReply):
 * PostgreSQL sends the messages up to that budget and the first one past
 * it, which makes the read 422 reply_too_large, so a document of many
 * transcript reads never loads more than one reply can hold.
 */
export function messagesAfter(
  ctx: AppContext,
  sessionId: string,
  after: number,
  limit: number,
  includeCompacted: boolean,
): Promise<{ messages: SessionMessageModel[]; more: boolean }> {
  return loadWithinReply(ctx, async (budget) => {
    const kept = (alias: string) => (includeCompacted ? '' : `AND ${alias}.compacted_at IS NULL`);
    const page = withinBudgetSql(messageRows(`FROM session_messages m WHERE m.session_id = $id AND m.seq > $after ${kept('m')} ORDER BY m.seq LIMIT $limit`), ['seq']);
    const rows = await database().query(
      `SELECT w.*, CASE WHEN w.seq = max(w.seq) OVER () THEN EXISTS (SELECT 1 FROM session_messages x WHERE x.session_id = $id AND x.seq > w.seq ${kept('x')}) END AS more
         FROM (${page}) w ORDER BY w.seq`,
      { bind: { id: sessionId, after, limit, budget }, model: SessionMessageModel, mapToModel: true },
    );
    return { value: { messages: rows, more: rows.at(-1)?.get('more') === true }, bytes: loadedBytes(rows.map((row) => row.get('loaded'))) };
  });
}

/** The events a session read asks for: its non-compacted transcript messages after `after_sequence`, as a transcript page reads them; null when not asked. */
export async function sessionEvents(ctx: AppContext, sessionId: string, args: SessionEventsArgs): Promise<SessionMessageModel[] | null> {
  if (!asksForEvents(args)) return null;
  return (await messagesAfter(ctx, sessionId, args.after_sequence ?? 0, args.limit ?? DEFAULT_TRANSCRIPT_PAGE, false)).messages;
}

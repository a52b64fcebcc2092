import type { SessionModel } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import type { AppContext } from '../../core/context';
import { validationFailure } from '../../core/errors';
import { findSession, resolveSessionWorkspace } from './session-ref';
import { TranscriptMessage } from './sessions.types';
import { contentText, messagesAfter } from './transcript.service';

/**
 * A session's transcript as a trajectory (decisions §14), in three formats:
 *
 * - `atif`: the Agent Trajectory Interchange Format, v1.7 (Harbor's RFC 0001,
 *   "ATIF-v1.7"). Mapping:
 *   - trajectory: `schema_version` "ATIF-v1.7"; `session_id` the session's id;
 *     `agent` {name: the session's `agent` (or "unknown"), version: "unknown"
 *     (ATIF requires one; a session records no agent version), model_name:
 *     its `model`}; `final_metrics` the sums of the steps' metrics and
 *     `total_steps`; `extra` {title, project_id}. ATIF requires at least one
 *     step: a transcript with no message (none left after compaction either)
 *     is 422 at `format` (`openai` and `native` answer it empty).
 *   - one step per message, in seq order, `step_id` from 1, `timestamp` its
 *     append time: `user` → source `user`; `system` → `system`; `assistant` →
 *     `agent` with `model_name`, `tool_calls` ({tool_call_id, function_name,
 *     arguments}: ATIF's arguments are an object, so arguments saved as JSON
 *     text of an object are parsed, and any other value is kept in the
 *     step's `extra.raw_tool_arguments` by call id, with `{}` in the call)
 *     and `metrics` from its usage (prompt_tokens ← input_tokens,
 *     completion_tokens ← output_tokens, cached_tokens ←
 *     cache_read_input_tokens, cost_usd); `message` is the content's text
 *     (structured content keeps its JSON in `extra.content`).
 *   - a `tool` message is the `observation` of the agent step that made its
 *     call (`{results: [{source_call_id, content}]}`); one answering no known
 *     call becomes a `system` step.
 *   - compaction summaries carry `extra.is_summary`; compacted messages appear
 *     only when asked for.
 * - `openai`: a bare array of Chat Completions messages ({role, content,
 *   tool_calls [{id, type: "function", function: {name, arguments (JSON
 *   text)}}], tool_call_id}); a `tool` message answering no call of the
 *   assistant message before it (only tool messages between) is a `system`
 *   message, as one answering no earlier call is a system step in ATIF
 *   (withAnsweredCalls). An assistant message lists only the calls answered
 *   by the tool messages right after it (Chat Completions refuses a call
 *   left unanswered, as when a run stopped mid-call; ATIF and `native` keep
 *   every call). A message without content has content "" (Chat
 *   Completions needs it), but an assistant message with calls left.
 * - `native`: `{session, messages, events}`: the session, its transcript
 *   messages as `GET …/transcript` gives them, and `events` (the service
 *   keeps no events besides messages: always an empty list).
 */

export const TRAJECTORY_FORMATS = ['atif', 'openai', 'native'] as const;
export type TrajectoryFormat = (typeof TRAJECTORY_FORMATS)[number];

/** A transcript message as the trajectory reads it. */
export interface TrajectoryMessage {
  seq: number;
  role: string;
  content: unknown;
  tool_calls: { id: string; name: string; arguments: unknown }[] | null;
  tool_call_id: string | null;
  is_summary: boolean;
  created_at: Date;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  cache_read_input_tokens: number | string | null;
  cost_usd: number | null;
  has_usage: boolean;
}

export interface TrajectorySession {
  id: string;
  agent: string | null;
  model: string | null;
  title: string | null;
  project_id: string | null;
}

const number = (value: number | string | null) => (value === null ? 0 : Number(value));

/** A tool call's arguments as ATIF's object: an object as saved, or the object its JSON text spells; null for anything else (or no arguments: `{}`). */
function argumentsObject(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return null;
    }
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/**
 * Each message with the call it answers: for a `tool` message, its
 * `tool_call_id` when an earlier assistant message of the trajectory made
 * that call (with `adjacent`, the last assistant message, with only tool
 * messages since: Chat Completions refuses any other), else null. A tool
 * message answering no call (none named, or its call compacted away) reads
 * as a system message in every format: ATIF's system step, Chat
 * Completions' system message. For an assistant message, `answered` holds
 * those of its calls that a tool message answers (filled as the later
 * messages are read).
 */
function withAnsweredCalls(messages: TrajectoryMessage[], adjacent: boolean): { message: TrajectoryMessage; answers: string | null; answered: Set<string> }[] {
  // Each call id made so far, to the `answered` of the assistant message that made it.
  const made = new Map<string, Set<string>>();
  return messages.map((message) => {
    if (adjacent && message.role !== 'tool') made.clear();
    const answered = new Set<string>();
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) made.set(call.id, answered);
    const answers = message.role === 'tool' && message.tool_call_id && made.has(message.tool_call_id) ? message.tool_call_id : null;
    if (answers !== null) made.get(answers)!.add(answers);
    return { message, answers, answered };
  });
}

export function toAtif(session: TrajectorySession, messages: TrajectoryMessage[]): Record<string, unknown> {
  const steps: Record<string, unknown>[] = [];
  // The agent step that made each tool call, for the tool message answering it.
  const callers = new Map<string, { observation?: { results: { source_call_id: string; content: string }[] } }>();
  const totals = { prompt: 0, completion: 0, cached: 0, cost: 0, costed: false };
  for (const { message, answers } of withAnsweredCalls(messages, false)) {
    const text = contentText(message.content);
    const structured = message.content !== null && typeof message.content !== 'string';
    const extra: Record<string, unknown> & { raw_tool_arguments?: Record<string, unknown> } = {
      ...(structured ? { content: message.content } : {}),
      ...(message.is_summary ? { is_summary: true } : {}),
      seq: message.seq,
    };
    if (answers !== null) {
      const caller = callers.get(answers)!;
      caller.observation ??= { results: [] };
      caller.observation.results.push({ source_call_id: answers, content: text });
      continue;
    }
    const source = message.role === 'user' ? 'user' : message.role === 'assistant' ? 'agent' : 'system';
    const step: Record<string, unknown> = { step_id: steps.length + 1, timestamp: message.created_at.toISOString(), source, message: text };
    if (source === 'agent') {
      if (session.model) step.model_name = session.model;
      if (message.tool_calls?.length) {
        step.tool_calls = message.tool_calls.map((call) => {
          const args = argumentsObject(call.arguments);
          // Keyed by call id, any id (`__proto__` included) an ordinary key.
          if (!args) (extra.raw_tool_arguments ??= Object.create(null) as Record<string, unknown>)[call.id] = call.arguments;
          return { tool_call_id: call.id, function_name: call.name, arguments: args ?? {} };
        });
        for (const call of message.tool_calls) callers.set(call.id, step);
      }
      if (message.has_usage) {
        const metrics = {
          prompt_tokens: number(message.input_tokens),
          completion_tokens: number(message.output_tokens),
          cached_tokens: number(message.cache_read_input_tokens),
          ...(message.cost_usd === null ? {} : { cost_usd: message.cost_usd }),
        };
        step.metrics = metrics;
        totals.prompt += metrics.prompt_tokens;
        totals.completion += metrics.completion_tokens;
        totals.cached += metrics.cached_tokens;
        if (message.cost_usd !== null) {
          totals.cost += message.cost_usd;
          totals.costed = true;
        }
      }
    }
    step.extra = extra;
    steps.push(step);
  }
  return {
    schema_version: 'ATIF-v1.7',
    session_id: session.id,
    agent: { name: session.agent ?? 'unknown', version: 'unknown', ...(session.model ? { model_name: session.model } : {}) },
    steps,
    final_metrics: {
      total_prompt_tokens: totals.prompt,
      total_completion_tokens: totals.completion,
      total_cached_tokens: totals.cached,
      ...(totals.costed ? { total_cost_usd: totals.cost } : {}),
      total_steps: steps.length,
    },
    extra: { title: session.title, project_id: session.project_id },
  };
}

export function toOpenAiMessages(messages: TrajectoryMessage[]): Record<string, unknown>[] {
  return withAnsweredCalls(messages, true).map(({ message, answers, answered }) => {
    const role = message.role === 'tool' ? (answers === null ? 'system' : 'tool') : ['user', 'assistant', 'system'].includes(message.role) ? message.role : 'user';
    const calls = (message.tool_calls ?? []).filter((call) => answered.has(call.id));
    const content = typeof message.content === 'string' || message.content === null ? message.content : contentText(message.content);
    return {
      role,
      // Chat Completions needs every message's content but an assistant message's that has calls.
      content: content === null && !(role === 'assistant' && calls.length) ? '' : content,
      ...(calls.length
        ? {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}) },
            })),
          }
        : {}),
      ...(answers === null ? {} : { tool_call_id: answers }),
    };
  });
}

/** The most messages a trajectory holds (a longer transcript is read page by page with GET …/transcript). */
export const MAX_TRAJECTORY_MESSAGES = 10_000;

/** The session's transcript as a trajectory of `format` (visibility as for every session read). */
export async function sessionTrajectory(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  format: TrajectoryFormat,
  includeCompacted: boolean,
): Promise<unknown> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const session = await findSession(scope, ref);
  return trajectoryOf(ctx, session, format, includeCompacted);
}

/** A session's trajectory (also an evaluation item's, through its session). */
export async function trajectoryOf(ctx: AppContext, session: SessionModel, format: TrajectoryFormat, includeCompacted: boolean): Promise<unknown> {
  const { messages: rows, more } = await messagesAfter(ctx, session.id, 0, MAX_TRAJECTORY_MESSAGES, includeCompacted);
  if (more) {
    throw validationFailure(['query', 'format'], `The transcript holds more than ${MAX_TRAJECTORY_MESSAGES} messages; read it page by page (GET …/transcript)`, 'too_long');
  }
  const messages = rows.map((row) => row.get({ plain: true }) as unknown as TrajectoryMessage);
  if (format === 'openai') return toOpenAiMessages(messages);
  if (format === 'atif') {
    if (!messages.length) throw validationFailure(['query', 'format'], 'The transcript has no messages, and an ATIF trajectory needs at least one step; format=openai or native answer it empty', 'value_error');
    return toAtif(session, messages);
  }
  return {
    session: {
      id: session.id,
      title: session.title,
      agent: session.agent,
      model: session.model,
      project_id: session.project_id,
      group_id: session.group_id,
      origin: session.origin,
      visibility: session.visibility,
      message_count: session.message_count,
      created_at: session.created_at,
      updated_at: session.updated_at,
    },
    messages: rows.map((row) => fromRow(TranscriptMessage, row.get({ plain: true }) as Record<string, unknown>)),
    events: [],
  };
}

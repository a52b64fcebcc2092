import type { ServerResponse } from 'node:http';
import { config } from '../config/config';
import { NotFoundError, toEnvelope, ValidationError, type AppError } from '../core/errors';
import { logger } from '../core/logger';
import type { JsonArrayReply } from '../core/json-array-reply';
import { readAsset } from './static-assets';

/**
 * What the HTTP layer attaches to a response before its reply is written:
 * the headers every reply carries (X-Request-Id, X-RateLimit-*) and what
 * runs once the reply is handed to the socket (metrics and the log line).
 * Headers go out in the one `writeHead` of the reply, not by `setHeader`
 * beforehand (a header set early sends Node's `writeHead` down its merging
 * path), and the hooks run when the reply is ended here, not from a
 * `finish` listener: less work on every request, the health route's most of
 * all (bench/README.md, requests).
 */
export interface ReplyHooks {
  headers: Record<string, string>;
  written(): void;
}

const HOOKS = Symbol('replyHooks');
type HookedResponse = ServerResponse & { [HOOKS]?: ReplyHooks };

export function attachReplyHooks(res: ServerResponse, hooks: ReplyHooks): void {
  (res as HookedResponse)[HOOKS] = hooks;
}

type HeaderValues = Record<string, string | string[] | number>;

/**
 * Set once the server is shutting down (src/server.ts): every reply written
 * from then on says `Connection: close`, so Node closes its connection after
 * it and a keep-alive client moves on instead of being served until the
 * shutdown timeout.
 */
let closingConnections = false;

export function closeConnectionsAfterReplies(): void {
  closingConnections = true;
}

/** The status line and headers of a reply, with the headers every reply carries. */
export function writeHead(res: ServerResponse, status: number, headers: HeaderValues): void {
  writeReplyHead(res, status, headers, null, 0);
}

/**
 * One header object per reply, filled by assignment: object spread over
 * objects whose keys vary is markedly slower, and this runs on every reply
 * of every route (bench/README.md, requests).
 */
function writeReplyHead(res: ServerResponse, status: number, headers: HeaderValues | null, contentType: string | null, length: number | null): void {
  const all: HeaderValues = {};
  const hooks = (res as HookedResponse)[HOOKS];
  if (hooks) for (const name in hooks.headers) all[name] = hooks.headers[name];
  if (headers) for (const name in headers) all[name] = headers[name];
  if (contentType !== null) {
    all['Content-Type'] = contentType;
    if (length !== null) all['Content-Length'] = length;
  }
  if (closingConnections) all.Connection = 'close';
  res.writeHead(status, all);
}

/** Ends the reply (the body, if any, in the same write as the headers) and runs the hooks once. */
export function endReply(res: ServerResponse, body?: string | Buffer): void {
  if (body === undefined) res.end();
  else res.end(body);
  runHooks(res);
}

function runHooks(res: ServerResponse): void {
  const hooks = (res as HookedResponse)[HOOKS];
  if (!hooks) return;
  (res as HookedResponse)[HOOKS] = undefined;
  try {
    hooks.written();
  } catch (error) {
    // The reply is already on its way: a failing log line or metric must not cut it short.
    logger.error({ err: error }, 'recording a reply failed');
  }
}

/** The one place replies are written. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> | null = null): void {
  sendText(res, status, JSON.stringify(body), headers);
}

/** A JSON text already serialised (GraphQL and REST results). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string | string[]> | null = null): void {
  writeReplyHead(res, status, headers, 'application/json; charset=utf-8', Buffer.byteLength(text));
  endReply(res, text);
}

/**
 * The answer to a request whose reply would pass MAX_REPLY_BYTES: 422
 * validation_error at `loc` (the GraphQL query, a REST query string), as the
 * GraphQL budget declines a query: the request is well-formed and declined
 * for the size of what it asks. Not 413, which is about the request's own
 * body.
 */
export function replyTooLarge(loc: (string | number)[], bytes: number | null): ValidationError {
  const max = config().MAX_REPLY_BYTES;
  const size = bytes === null ? `over the limit of ${max} bytes` : `${bytes} bytes, over the limit of ${max}`;
  const msg = `The reply would be ${size}; narrow the query (a smaller limit or page, fewer fields)`;
  return new ValidationError([{ loc, msg, type: 'reply_too_large' }], msg);
}

/** replyTooLarge for a reply text over MAX_REPLY_BYTES, else null. */
export function oversizedReply(text: string, loc: (string | number)[]): ValidationError | null {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most replies are judged by their length alone.
  if (text.length * 3 <= config().MAX_REPLY_BYTES) return null;
  const bytes = Buffer.byteLength(text);
  return bytes > config().MAX_REPLY_BYTES ? replyTooLarge(loc, bytes) : null;
}

/** Streamed replies (sendJsonArray) below this many characters go out whole, with their Content-Length; longer ones are sent as they are made. */
export const STREAM_CHUNK_CHARS = 64 * 1024;

/** Thrown into a stream's `each` once its client has gone: the rows still to come are not needed. */
class ClientGone extends Error {}

/** Thrown into a stream's `each` once the reply passed MAX_REPLY_BYTES. */
class ReplyOverLimit extends Error {}

/**
 * A JSON array whose elements come one at a time (JsonArrayReply): up to
 * STREAM_CHUNK_CHARS characters it is answered like any reply (one write,
 * with Content-Length); past that the head goes out (chunked transfer
 * encoding) and each chunk is written as soon as it fills. A failure before
 * anything was written is thrown for the error envelope; after that it is
 * thrown with the head already sent, and the caller cuts the connection
 * (the client sees an incomplete reply, never a shorter array that parses).
 * A client that goes away stops the rows (the statement still runs to its
 * end) and the request is recorded as aborted. A reply that passes
 * MAX_REPLY_BYTES stops its rows too: before anything was written it is
 * thrown as replyTooLarge (loc `["query"]`) for the error envelope; after,
 * the connection is cut as for a failure, and the cut is logged.
 */
export async function sendJsonArray(res: ServerResponse, status: number, reply: JsonArrayReply, headers: Record<string, string | string[]> | null = null): Promise<void> {
  const max = config().MAX_REPLY_BYTES;
  let pending = '[';
  let empty = true;
  let sent = 0;
  try {
    await reply.each((json) => {
      if (res.destroyed) throw new ClientGone();
      pending += empty ? json : `,${json}`;
      empty = false;
      if (pending.length < STREAM_CHUNK_CHARS) return;
      // Encoded here rather than by res.write, so its size is known without a second pass.
      const chunk = Buffer.from(pending);
      sent += chunk.length;
      if (sent > max) throw new ReplyOverLimit();
      if (!res.headersSent) writeReplyHead(res, status, headers, 'application/json; charset=utf-8', null);
      res.write(chunk);
      pending = '';
    });
  } catch (error) {
    if (error instanceof ClientGone) return abortReply(res);
    if (error instanceof ReplyOverLimit) return cutOversized(res);
    throw error;
  }
  if (res.destroyed) return abortReply(res);
  pending += ']';
  if (!res.headersSent) {
    const tooLarge = oversizedReply(pending, ['query']);
    if (tooLarge) throw tooLarge;
    return sendText(res, status, pending, headers);
  }
  if (sent + Buffer.byteLength(pending) > max) return cutOversized(res);
  endReply(res, pending);
}

/** A streamed reply past MAX_REPLY_BYTES: the envelope while nothing was written, else the connection cut. */
function cutOversized(res: ServerResponse): void {
  if (!res.headersSent) throw replyTooLarge(['query'], null);
  logger.warn({ limit: config().MAX_REPLY_BYTES }, 'streamed reply cut at MAX_REPLY_BYTES');
  abortReply(res);
}

/**
 * Ends a reply whose body cannot be finished (a failure mid-stream, a client
 * gone): the connection is cut, and the log line and metrics are still
 * recorded, with the status `aborted`.
 */
export function abortReply(res: ServerResponse): void {
  res.destroy();
  runHooks(res);
}

/** The spec's error envelope with the error's status and headers (Retry-After, …). */
export function sendError(res: ServerResponse, error: AppError, extraHeaders: Record<string, string> = {}): void {
  sendJson(res, error.status, toEnvelope(error), { ...error.headers, ...extraHeaders });
}

export function sendHtml(res: ServerResponse, html: string): void {
  writeReplyHead(res, 200, null, 'text/html; charset=utf-8', Buffer.byteLength(html));
  endReply(res, html);
}

export function sendAsset(res: ServerResponse, name: string): void {
  const asset = readAsset(name);
  if (!asset) throw new NotFoundError('Asset');
  writeHead(res, 200, { 'Content-Type': asset.contentType, 'Content-Length': asset.body.length, 'Cache-Control': 'public, max-age=3600' });
  endReply(res, asset.body);
}

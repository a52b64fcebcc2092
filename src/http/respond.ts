import type { ServerResponse } from 'node:http';
import { NotFoundError, toEnvelope, type AppError } from '../core/errors';
import { logger } from '../core/logger';
import type { JsonArrayReply } from '../core/rest/json-array';
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

/** The status line and headers of a reply, with the headers every reply carries. */
export function writeHead(res: ServerResponse, status: number, headers: HeaderValues): void {
  writeReplyHead(res, status, headers, null, 0);
}

/**
 * One header object per reply, filled by assignment: object spread over
 * objects whose keys vary costs close to a microsecond each (measured on
 * Node 20), on every reply of every route.
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

/** Streamed replies (sendJsonArray) below this many characters go out whole, with their Content-Length; longer ones are sent as they are made. */
export const STREAM_CHUNK_CHARS = 64 * 1024;

/** Thrown into a stream's `each` once its client has gone: the rows still to come are not needed. */
class ClientGone extends Error {}

/**
 * A JSON array whose elements come one at a time (JsonArrayReply): up to
 * STREAM_CHUNK_CHARS characters it is answered like any reply (one write,
 * with Content-Length); past that the head goes out (chunked transfer
 * encoding) and each chunk is written as soon as it fills. A failure before
 * anything was written is thrown for the error envelope; after that it is
 * thrown with the head already sent, and the caller cuts the connection
 * (the client sees an incomplete reply, never a shorter array that parses).
 * A client that goes away stops the rows (the statement still runs to its
 * end) and the request is recorded as aborted.
 */
export async function sendJsonArray(res: ServerResponse, status: number, reply: JsonArrayReply, headers: Record<string, string | string[]> | null = null): Promise<void> {
  let pending = '[';
  let empty = true;
  try {
    await reply.each((json) => {
      if (res.destroyed) throw new ClientGone();
      pending += empty ? json : `,${json}`;
      empty = false;
      if (pending.length < STREAM_CHUNK_CHARS) return;
      if (!res.headersSent) writeReplyHead(res, status, headers, 'application/json; charset=utf-8', null);
      res.write(pending);
      pending = '';
    });
  } catch (error) {
    if (error instanceof ClientGone) return abortReply(res);
    throw error;
  }
  if (res.destroyed) return abortReply(res);
  pending += ']';
  if (!res.headersSent) return sendText(res, status, pending, headers);
  endReply(res, pending);
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

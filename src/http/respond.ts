import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';
import { config } from '../config/config';
import { NotFoundError, toEnvelope, ValidationError, type AppError } from '../core/errors';
import { logger } from '../config/logger';
import type { JsonArrayReply } from '../core/json-array-reply';
import { replyTooLarge, type Transport } from '../core/errors';
import { formatGraphQLError } from '../core/errors/graphql-errors';
import { readAsset, type StaticBody } from './static-assets';

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
  // Vary lists every header the reply depends on: CORS's Origin (the request's) and the reply's own Accept-Encoding.
  if (headers) for (const name in headers) all[name] = name === 'Vary' && all.Vary ? `${all.Vary}, ${headers.Vary}` : headers[name];
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

/**
 * A body produced as it is sent (a bundle built while it downloads): the
 * head now, then the stream piped with backpressure; a source that fails
 * mid-body cuts the reply (abortReply). HEAD gets the head alone; a GET
 * whose If-None-Match names the reply's ETag (when the caller knows it
 * before the bytes) gets 304.
 */
export async function sendStream(res: ServerResponse, status: number, contentType: string, headers: HeaderValues | null, source: Readable): Promise<void> {
  const req = res.req as IncomingMessage | undefined;
  // A stream whose tag is known before its bytes (a stored file's SHA-256) is answered 304 as a whole reply is.
  const tag = headers?.ETag;
  if (typeof tag === 'string' && cacheable(req, status) && notModified(req, tag)) {
    source.destroy();
    writeReplyHead(res, 304, headers, null, null);
    return endReply(res);
  }
  writeReplyHead(res, status, headers, contentType, null);
  if (req?.method === 'HEAD') {
    source.destroy();
    return endReply(res);
  }
  try {
    await pipeline(source, res);
  } catch {
    return abortReply(res);
  }
  runHooks(res);
}

/** The one place replies are written. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> | null = null): void {
  sendText(res, status, JSON.stringify(body), headers);
}

/** A JSON text already serialised (GraphQL and REST results). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string | string[]> | null = null): void {
  sendBody(res, status, text, 'application/json; charset=utf-8', headers);
}

/** Bodies from this size on are compressed when the client accepts it. */
export const COMPRESS_MIN_BYTES = 1024;

/** Content codings offered, preferred first when the client weighs them alike. */
const CODINGS = ['br', 'gzip'] as const;
type Coding = (typeof CODINGS)[number];

/** Fast settings for replies made per request (brotli's default quality, 11, is for files compressed once). */
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

function codingFor(req: IncomingMessage | undefined): Coding | null {
  if (!req?.headers['accept-encoding']) return null;
  return (new Negotiator(req).encoding([...CODINGS]) as Coding | undefined) ?? null;
}

/** A representation's digest: its content type and its body (two media types of one body are two representations, with two strong tags). */
const digestOfBody = (contentType: string, body: string | Buffer) => crypto.createHash('sha1').update(contentType).update('\n').update(body).digest('base64url');

/** A strong entity tag: the representation's SHA-1 (base64url; digestOfBody), and `.coding` for a compressed one. */
function entityTag(digest: string, coding: Coding | null): string {
  return `"${digest}${coding ? `.${coding}` : ''}"`;
}

/** An entity tag this server makes (`"digest"`, `"digest.coding"`, weak or not): its digest; null for any other text. */
const ENTITY_TAG = new RegExp(`^(?:W/)?"([A-Za-z0-9_-]+)(?:\\.(?:${CODINGS.join('|')}))?"$`);
const digestOf = (tag: string) => ENTITY_TAG.exec(tag.trim())?.[1] ?? null;

/** A GET's or HEAD's 200: tagged, and answered 304 when If-None-Match names it. */
const cacheable = (req: IncomingMessage | undefined, status: number) => status === 200 && (req?.method === 'GET' || req?.method === 'HEAD');

/** Whether If-None-Match names this body, in any of its codings (or `*`, which matches a reply without a tag too). */
function notModified(req: IncomingMessage | undefined, tag: string | null): boolean {
  const header = req?.headers['if-none-match'];
  if (!header) return false;
  const digest = tag === null ? null : digestOf(tag);
  return header.split(',').some((item) => item.trim() === '*' || (digest !== null && digestOf(item) === digest));
}

/**
 * A whole reply body. A GET's (or HEAD's) 200 carries a strong ETag, and a
 * request whose If-None-Match names it is answered 304 without the body.
 * From COMPRESS_MIN_BYTES on, the body goes out in the coding the client
 * prefers among br and gzip (node:zlib, off the event loop), with Vary:
 * Accept-Encoding. A HEAD request gets the same head (Node writes no body).
 * `body` may be a StaticBody, whose digest and compressed forms are kept.
 */
export function sendBody(res: ServerResponse, status: number, content: string | Buffer | StaticBody, contentType: string, headers: HeaderValues | null): void {
  const stable = typeof content === 'object' && !Buffer.isBuffer(content) ? content : null;
  const body = stable ? stable.body : (content as string | Buffer);
  const req = res.req as IncomingMessage | undefined;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const compressible = length >= COMPRESS_MIN_BYTES;
  const coding = compressible ? codingFor(req) : null;
  const all: HeaderValues = headers ? { ...headers } : {};
  if (compressible) all.Vary = all.Vary ? `${all.Vary}, Accept-Encoding` : 'Accept-Encoding';
  if (cacheable(req, status)) {
    const digest = stable ? (stable.digest ??= digestOfBody(contentType, body)) : digestOfBody(contentType, body);
    all.ETag = entityTag(digest, coding);
    if (notModified(req, all.ETag)) {
      writeReplyHead(res, 304, all, null, null);
      return endReply(res);
    }
  }
  if (!coding) {
    writeReplyHead(res, status, all, contentType, length);
    return endReply(res, body);
  }
  all['Content-Encoding'] = coding;
  const ready = stable?.encoded.get(coding);
  if (ready) return sendEncoded(res, status, all, contentType, ready);
  const done = (error: Error | null, encoded: Buffer) => {
    if (error) {
      logger.error({ err: error }, 'compressing a reply failed');
      return abortReply(res);
    }
    stable?.encoded.set(coding, encoded);
    sendEncoded(res, status, all, contentType, encoded);
  };
  if (coding === 'br') zlib.brotliCompress(body, BROTLI_OPTIONS, done);
  else zlib.gzip(body, done);
}

function sendEncoded(res: ServerResponse, status: number, headers: HeaderValues, contentType: string, encoded: Buffer): void {
  if (res.destroyed) return abortReply(res);
  writeReplyHead(res, status, headers, contentType, encoded.length);
  endReply(res, encoded);
}

/** replyTooLarge for a reply text over MAX_REPLY_BYTES, else null. */
export function oversizedReply(text: string, transport: Transport): ValidationError | null {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most replies are judged by their length alone.
  if (text.length * 3 <= config().MAX_REPLY_BYTES) return null;
  const bytes = Buffer.byteLength(text);
  return bytes > config().MAX_REPLY_BYTES ? replyTooLarge(transport, bytes) : null;
}

/** Streamed replies (sendJsonArray) below this many characters go out whole, with their Content-Length; longer ones are sent as they are made. */
export const STREAM_CHUNK_CHARS = 64 * 1024;

/** Thrown into a stream's `each` once its client has gone: the rows still to come are not needed. */
class ClientGone extends Error {}

/** Thrown into a stream's `each` once the reply passed MAX_REPLY_BYTES. */
class ReplyOverLimit extends Error {}

/** Thrown into a stream's `each` when it is answered 304 instead (If-None-Match: *). */
class AnsweredNotModified extends Error {}

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
  const req = res.req as IncomingMessage | undefined;
  let pending = '[';
  let empty = true;
  let sent = 0;
  let sink = null as ChunkSink | null;
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
      // A streamed reply has no tag (it would be known only after its last byte), but `*` matches any 200.
      if (!sink && cacheable(req, status) && notModified(req, null)) throw new AnsweredNotModified();
      sink ??= openChunked(res, status, headers);
      sink.write(chunk);
      pending = '';
    });
  } catch (error) {
    if (error instanceof ClientGone) return sink ? sink.abort() : abortReply(res);
    if (error instanceof ReplyOverLimit) return cutOversized(res, sink);
    if (error instanceof AnsweredNotModified) {
      writeReplyHead(res, 304, { ...headers, Vary: 'Accept-Encoding' }, null, null);
      return endReply(res);
    }
    if (sink) sink.abort();
    throw error;
  }
  if (res.destroyed) return sink ? sink.abort() : abortReply(res);
  pending += ']';
  if (!sink) {
    const tooLarge = oversizedReply(pending, 'rest');
    if (tooLarge) throw tooLarge;
    return sendText(res, status, pending, headers);
  }
  if (sent + Buffer.byteLength(pending) > max) return cutOversized(res, sink);
  sink.end(pending);
}

/** Where a reply sent in chunks goes: the response, or a compressor writing into it. */
interface ChunkSink {
  write(chunk: Buffer): void;
  end(last: string): void;
  abort(): void;
}

/** Writes the head of a reply of unknown length (chunked transfer encoding), compressed when the client accepts it. */
function openChunked(res: ServerResponse, status: number, headers: Record<string, string | string[]> | null): ChunkSink {
  const coding = codingFor(res.req as IncomingMessage | undefined);
  const all: HeaderValues = headers ? { ...headers } : {};
  all.Vary = 'Accept-Encoding';
  if (!coding) {
    writeReplyHead(res, status, all, 'application/json; charset=utf-8', null);
    return { write: (chunk) => void res.write(chunk), end: (last) => endReply(res, last), abort: () => abortReply(res) };
  }
  all['Content-Encoding'] = coding;
  writeReplyHead(res, status, all, 'application/json; charset=utf-8', null);
  const compressor = coding === 'br' ? zlib.createBrotliCompress(BROTLI_OPTIONS) : zlib.createGzip();
  compressor.on('data', (chunk: Buffer) => res.write(chunk));
  compressor.on('end', () => endReply(res));
  compressor.on('error', (error) => {
    logger.error({ err: error }, 'compressing a reply failed');
    abortReply(res);
  });
  return {
    write: (chunk) => void compressor.write(chunk),
    end: (last) => compressor.end(last),
    abort: () => {
      compressor.destroy();
      abortReply(res);
    },
  };
}

/** A streamed reply past MAX_REPLY_BYTES: the envelope while nothing was written, else the connection cut. */
function cutOversized(res: ServerResponse, sink: ChunkSink | null): void {
  if (!sink) throw replyTooLarge('rest', null);
  logger.warn({ limit: config().MAX_REPLY_BYTES }, 'streamed reply cut at MAX_REPLY_BYTES');
  sink.abort();
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

/**
 * An error as its transport replies with one, with the error's status and
 * headers (Retry-After, Allow, …): the spec's envelope on REST routes,
 * GraphQL's `{"errors": [...]}` on /graphql (what Apollo answers its own
 * refusals with, in the media type Apollo would choose), so a GraphQL
 * client reads every refusal the same way.
 */
export function sendError(res: ServerResponse, error: AppError, transport: Transport = 'rest'): void {
  if (transport === 'rest') return sendJson(res, error.status, toEnvelope(error), error.headers);
  const text = `${JSON.stringify({ errors: [formatGraphQLError({ message: error.message }, error)] })}\n`;
  sendBody(res, error.status, text, graphqlMediaType(res.req), error.headers);
}

/** GraphQL's JSON media types, as Apollo offers them: application/json unless the client prefers the other. */
const GRAPHQL_MEDIA_TYPES = ['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8'];
/** The one of `types` the request's Accept prefers (q-values counted); null without an Accept or when it takes none. */
function preferredMediaType(req: IncomingMessage | undefined, types: string[]): string | null {
  const accept = req?.headers.accept;
  return (accept && new Negotiator({ headers: { accept } }).mediaType(types)) || null;
}

/** Whether a GET of /graphql asks for the playground: its Accept prefers HTML to GraphQL's JSON types. */
export const prefersHtml = (req: IncomingMessage) => preferredMediaType(req, [...GRAPHQL_MEDIA_TYPES, 'text/html']) === 'text/html';

const graphqlMediaType = (req: IncomingMessage | undefined) => preferredMediaType(req, GRAPHQL_MEDIA_TYPES) ?? GRAPHQL_MEDIA_TYPES[0];

/**
 * The policy of the two HTML pages (playground, docs): scripts, styles,
 * fonts and requests from this origin only (the libraries set inline style
 * attributes, and draw icons as data: images), never in a frame.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export function sendHtml(res: ServerResponse, page: StaticBody, headers: HeaderValues = {}): void {
  sendBody(res, 200, page, 'text/html; charset=utf-8', { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-cache', ...headers });
}

export function sendAsset(res: ServerResponse, name: string): void {
  const asset = readAsset(name);
  if (!asset) throw new NotFoundError('Asset');
  sendBody(res, 200, asset.content, asset.contentType, { 'Cache-Control': 'public, max-age=3600' });
}

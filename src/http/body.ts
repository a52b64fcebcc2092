import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { AppError, InvalidError, PayloadTooLargeError, UnsupportedMediaTypeError, type ValidationItem } from '../core/errors';
import { MAX_BODY_JSON_CONTAINERS, MAX_BODY_JSON_DEPTH, parseJsonWithin } from '../core/validation/json-text';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * A body over its limit: 400, and the connection closes once the reply is
 * written (`Connection: close`; Node ends the socket after it). The rest of
 * the body is never read: draining it would let a client stream without
 * end, and leaving it unread on a kept-alive connection left the client
 * blocked mid-body until the keep-alive timeout.
 */
class BodyTooLargeError extends AppError {
  constructor(limit: number) {
    super(400, 'invalid_error', `Request body exceeds the limit of ${limit} bytes`, { headers: { Connection: 'close' } });
  }
}

/**
 * Requests sent with `Expect: 100-continue` (curl's, for large bodies), and
 * their replies: `100 Continue` goes out only when the body is read
 * (readBody), so a body refused unread (its declared size, the credential,
 * the route) is never sent; Node closes such a connection after the reply.
 */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/** Holds back `req`'s `100 Continue` until its body is read (the server's `checkContinue`). */
export function deferContinue(req: IncomingMessage, res: ServerResponse): void {
  awaitingContinue.set(req, res);
}

/** Reads a request body up to `limit` bytes; larger bodies are 400 invalid_error and end the connection. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new BodyTooLargeError(limit);
  const waiting = awaitingContinue.get(req);
  if (waiting) {
    awaitingContinue.delete(req);
    waiting.writeContinue();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new BodyTooLargeError(limit);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error;
    // The request stream failed: malformed framing (Node's parser refused it, and the 'clientError'
    // handler in app.ts answered and logged it as a malformed request) or a client gone mid-body.
    // Either way the client's doing, never the database's (the stream's error says ECONNRESET).
    throw new InvalidError('The request body is malformed or incomplete');
  }
  return Buffer.concat(chunks);
}

/** The body's content coding as sent (`identity` when none). */
function contentCoding(req: IncomingMessage): string {
  return (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
}

/**
 * A body that may arrive gzip-compressed (OTLP exporters send
 * `Content-Encoding: gzip`), read within two limits: `limit` bytes as sent
 * and `inflatedLimit` once inflated. The compressed body (at most `limit`
 * bytes) is inflated in one call whose output zlib caps at `inflatedLimit`:
 * it stops at the first chunk past it, so a compressed bomb is refused (413)
 * after at most `inflatedLimit` bytes were made, never inflated whole. (One
 * call costs a fraction of a streamed inflate's CPU, which hands each 16 KiB
 * to the thread pool and back.)
 */
export async function readEncodedBody(req: IncomingMessage, limit: number, inflatedLimit: number): Promise<Buffer> {
  const encoding = contentCoding(req);
  if (encoding !== 'gzip' && encoding !== 'identity') throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported; send gzip or identity`);
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
  let sent: Buffer;
  try {
    sent = await readBody(req, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
    throw error;
  }
  if (encoding === 'identity') return sent;
  try {
    return zlib.gunzipSync(sent, { maxOutputLength: inflatedLimit, chunkSize: 64 * 1024 });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new PayloadTooLargeError(`Request body exceeds the limit of ${inflatedLimit} bytes once inflated`);
    throw new InvalidError('The request body is not valid gzip');
  }
}

/** A JSON body: its value (undefined when empty), or the 422 item saying where it broke. */
export interface JsonBody {
  value: unknown;
  error: ValidationItem | null;
  /** The bytes as sent (empty when none). */
  raw: Buffer;
}

/**
 * The one JSON body reader of both transports. A body comes as it is: one
 * with a `Content-Encoding` is 400 (read before the credential and the
 * quota on GraphQL and public routes, a compressed body would make a few
 * bytes cost a megabyte's inflating and parsing). A malformed body is
 * returned as an error item rather than thrown, so the caller reports it
 * after authentication (401 comes before 422).
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<JsonBody> {
  const raw = await readBody(req, limit);
  if (!raw.length) return { value: undefined, error: null, raw };
  const encoding = contentCoding(req);
  if (encoding !== 'identity') throw new InvalidError(`Content-Encoding ${encoding} is not supported here; send the JSON uncompressed`);
  const json = parseJsonWithin(raw, MAX_BODY_JSON_DEPTH, undefined, MAX_BODY_JSON_CONTAINERS);
  if (json.ok) return { value: json.value, error: null, raw };
  return { value: undefined, error: { loc: ['body', json.position], msg: json.msg, type: 'json_invalid' }, raw };
}

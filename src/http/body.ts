import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { AppError, InvalidError, PayloadTooLargeError, UnsupportedMediaTypeError, type ValidationItem } from '../core/errors';

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

/** Reads a request body up to `limit` bytes; larger bodies are 400 invalid_error and end the connection. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new BodyTooLargeError(limit);
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

/**
 * A body that may arrive gzip-compressed (OTLP exporters send
 * `Content-Encoding: gzip`), read within two limits: `limit` bytes as sent
 * and `inflatedLimit` once inflated. Inflating is streamed and stops at the
 * first byte past the limit, so a compressed bomb is refused (413) after
 * at most `inflatedLimit` bytes were made, never inflated whole.
 */
export async function readEncodedBody(req: IncomingMessage, limit: number, inflatedLimit: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'identity') throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported; send gzip or identity`);
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
  if (encoding === 'identity') {
    try {
      return await readBody(req, limit);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
      throw error;
    }
  }
  const gunzip = zlib.createGunzip();
  const chunks: Buffer[] = [];
  let sent = 0;
  let inflated = 0;
  let failure: AppError | null = null;
  const done = new Promise<void>((resolve) => {
    gunzip.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > inflatedLimit) {
        failure ??= new PayloadTooLargeError(`Request body exceeds the limit of ${inflatedLimit} bytes once inflated`);
        gunzip.destroy();
        return resolve();
      }
      chunks.push(chunk);
    });
    gunzip.on('error', () => {
      failure ??= new InvalidError('The request body is not valid gzip');
      resolve();
    });
    gunzip.on('end', resolve);
    gunzip.on('close', resolve);
  });
  try {
    for await (const chunk of req) {
      sent += (chunk as Buffer).length;
      if (sent > limit) throw new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
      if (failure) break;
      // Inflate as it arrives, waiting for the inflater to drain so its output never piles up.
      if (!gunzip.write(chunk)) await new Promise((resolve) => gunzip.once('drain', resolve).once('close', resolve));
      if (failure) break;
    }
  } catch (error) {
    gunzip.destroy();
    if (error instanceof AppError) throw error;
    throw new InvalidError('The request body is malformed or incomplete');
  }
  if (!failure) gunzip.end();
  await done;
  if (failure) throw failure;
  return Buffer.concat(chunks);
}

/** A JSON body: its value (undefined when empty), or the 422 item saying where it broke. */
export interface JsonBody {
  value: unknown;
  error: ValidationItem | null;
}

/**
 * The one JSON body reader of both transports. A malformed body is returned
 * as an error item rather than thrown, so the caller reports it after
 * authentication (401 comes before 422).
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<JsonBody> {
  const raw = await readBody(req, limit);
  if (!raw.length) return { value: undefined, error: null };
  try {
    return { value: JSON.parse(raw.toString('utf8')), error: null };
  } catch (error) {
    return { value: undefined, error: { loc: ['body', jsonErrorPosition(error)], msg: 'JSON decode error', type: 'json_invalid' } };
  }
}

function jsonErrorPosition(error: unknown): number {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match ? Number(match[1]) : 0;
}

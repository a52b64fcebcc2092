import type { IncomingMessage } from 'node:http';
import { AppError, InvalidError, type ValidationItem } from '../core/errors';

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

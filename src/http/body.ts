import type { IncomingMessage } from 'node:http';
import { InvalidError, type ValidationItem } from '../core/errors';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Reads a request body up to `limit` bytes; larger bodies are 400 invalid_error. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): InvalidError {
  return new InvalidError(`Request body exceeds the limit of ${limit} bytes`);
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

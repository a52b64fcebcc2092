import type { IncomingMessage } from 'node:http';
import { InvalidError } from '../errors';

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

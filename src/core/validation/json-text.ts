import { MAX_JSON_DEPTH } from './coerce';

/**
 * JSON read from a request: a request body, an OTLP export, JSON an SDK
 * wrote into an attribute value. JSON.parse's time grows with nesting far
 * faster than with size (1 MiB of `[` took 180 ms here, 8 MiB 2 s, against
 * 6 ms for 2 MB of flat spans), so the nesting is measured first, by one
 * pass over the bytes (half to two thirds of JSON.parse's time for the same
 * bytes, measured), and JSON nested past the limit is refused unparsed.
 */

/**
 * How deep a request body's JSON may nest: twice what a JSON input may
 * (MAX_JSON_DEPTH), so that an input nested too deep is still reported
 * where it is, by the validation that knows its location.
 */
export const MAX_BODY_JSON_DEPTH = 2 * MAX_JSON_DEPTH;

/** Parsed JSON, or where (`position`, in characters as JSON.parse counts them) and why it is not. */
export type JsonReading = { ok: true; value: unknown } | { ok: false; position: number; msg: string };

/** UTF-8 `bytes` parsed as JSON when its arrays and objects nest at most `levels` deep (`text`: their text, when the caller has it). */
export function parseJsonWithin(bytes: Uint8Array, levels: number, text?: string): JsonReading {
  const deep = nestedPast(bytes, levels);
  if (deep >= 0) {
    const position = Buffer.from(bytes.buffer, bytes.byteOffset, deep).toString('utf8').length;
    return { ok: false, position, msg: `JSON decode error: nested more than ${levels} levels deep` };
  }
  try {
    return { ok: true, value: JSON.parse(text ?? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')) as unknown };
  } catch (error) {
    const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
    return { ok: false, position: match ? Number(match[1]) : 0, msg: 'JSON decode error' };
  }
}

/**
 * The byte offset of the first `[` or `{` nested past `levels`, or -1.
 * Only brackets outside strings count (a backslash in a string escapes the
 * byte after it). Bytes that are not JSON are left to JSON.parse to refuse.
 */
export function nestedPast(bytes: Uint8Array, levels: number): number {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index];
    if (inString) {
      if (byte === 0x5c) index += 1;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > levels) return index;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth -= 1;
    }
  }
  return -1;
}

import { isUtf8 } from 'node:buffer';
import { MAX_JSON_DEPTH } from './coerce';

/**
 * JSON read from a request: a request body, an OTLP export, JSON an SDK
 * wrote into an attribute value. JSON.parse's time grows with nesting far
 * faster than with size (1 MiB of `[` took 180 ms here, 8 MiB 2 s, against
 * 6 ms for 2 MB of flat spans), so the nesting is measured first, by one
 * pass over the bytes (half to two thirds of JSON.parse's time for the same
 * bytes, measured), and JSON nested past the limit is refused unparsed. The
 * same pass counts the arrays and objects parsing would build: a caller may
 * bound them too, since an empty object costs about 60 bytes of memory for
 * its 3 bytes of text (`{},`), 20 times the text.
 */

/**
 * How deep a request body's JSON may nest: twice what a JSON input may
 * (MAX_JSON_DEPTH), so that an input nested too deep is still reported
 * where it is, by the validation that knows its location.
 */
export const MAX_BODY_JSON_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * How many arrays and objects a request body's JSON may hold: far more
 * than any valid body of the API (2,000 files and a manifest of at most
 * 128 KiB; a 1 MiB body cannot hold 350,000), and at most about 60 MB of
 * parsed objects, where 50 MiB of `{},` (a publish's limit) parsed to
 * 1.7 GB in 8 s.
 */
export const MAX_BODY_JSON_CONTAINERS = 2 ** 20;

/**
 * Parsed JSON and the arrays and objects it holds, or where (`position`, in
 * characters as JSON.parse counts them) and why it is not (`tooMany`: it
 * holds more arrays and objects than the caller allowed).
 */
export type JsonReading = { ok: true; value: unknown; containers: number } | { ok: false; position: number; msg: string; tooMany?: true };

/**
 * UTF-8 `bytes` parsed as JSON when its arrays and objects nest at most
 * `levels` deep and number at most `maxContainers` (`text`: their text, when
 * the caller has it). Bytes that are
 * not UTF-8 (RFC 8259 §8.1) are refused, never read with U+FFFD in their
 * place: a Latin-1 password would be stored as replacement characters that
 * any other such bytes match, a secret's value changed without a word.
 */
export function parseJsonWithin(bytes: Uint8Array, levels: number, text?: string, maxContainers = Infinity): JsonReading {
  if (text === undefined && !isUtf8(bytes)) {
    const valid = validUtf8Prefix(bytes);
    return { ok: false, position: Buffer.from(bytes.buffer, bytes.byteOffset, valid).toString('utf8').length, msg: 'JSON decode error: the body is not valid UTF-8' };
  }
  // A UTF-8 byte order mark is ignored (RFC 8259 §8.1 allows it; Python's json.loads of bytes does); positions still count it.
  if (text === undefined && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    const reading = parseJsonWithin(bytes.subarray(3), levels, undefined, maxContainers);
    return reading.ok ? reading : { ...reading, position: reading.position + 1 };
  }
  const scan = scanJson(bytes, levels, maxContainers);
  const at = (offset: number) => Buffer.from(bytes.buffer, bytes.byteOffset, offset).toString('utf8').length;
  if (scan.deepAt >= 0) return { ok: false, position: at(scan.deepAt), msg: `JSON decode error: nested more than ${levels} levels deep` };
  if (scan.tooManyAt >= 0) return { ok: false, position: at(scan.tooManyAt), msg: `JSON holds more than ${maxContainers} arrays and objects`, tooMany: true };
  try {
    return { ok: true, value: JSON.parse(text ?? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')) as unknown, containers: scan.containers };
  } catch (error) {
    const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
    return { ok: false, position: match ? Number(match[1]) : 0, msg: 'JSON decode error' };
  }
}

/** What one pass over JSON text found: the byte offsets of the first `[` or `{` nested past the levels and past the count allowed (-1: none), and how many it opens. */
export interface JsonScan {
  deepAt: number;
  tooManyAt: number;
  containers: number;
}

/**
 * The arrays and objects of JSON text, counted up to the first one nested
 * past `levels` or past `maxContainers`, where the scan stops. Only brackets
 * outside strings count (a backslash in a string escapes the byte after it).
 * Bytes that are not JSON are left to JSON.parse to refuse.
 */
export function scanJson(bytes: Uint8Array, levels: number, maxContainers = Infinity): JsonScan {
  let depth = 0;
  let containers = 0;
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
      containers += 1;
      if (depth > levels) return { deepAt: index, tooManyAt: -1, containers };
      if (containers > maxContainers) return { deepAt: -1, tooManyAt: index, containers };
    } else if (byte === 0x5d || byte === 0x7d) {
      depth -= 1;
    }
  }
  return { deepAt: -1, tooManyAt: -1, containers };
}

/**
 * How many of `bytes` are valid UTF-8 before the first byte that is not
 * (RFC 3629: the shortest form, no surrogates, at most U+10FFFF), in one
 * pass without allocating: only called once `isUtf8` has said the body is
 * not, but a 50 MiB body must not cost more than its reading.
 */
export function validUtf8Prefix(bytes: Uint8Array): number {
  let index = 0;
  const continuation = (at: number, low = 0x80, high = 0xbf) => at < bytes.length && bytes[at] >= low && bytes[at] <= high;
  while (index < bytes.length) {
    const byte = bytes[index];
    if (byte < 0x80) {
      index += 1;
    } else if (byte >= 0xc2 && byte <= 0xdf) {
      if (!continuation(index + 1)) return index;
      index += 2;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      // E0 needs A0–BF (no overlong form), ED 80–9F (no surrogate).
      if (!continuation(index + 1, byte === 0xe0 ? 0xa0 : 0x80, byte === 0xed ? 0x9f : 0xbf) || !continuation(index + 2)) return index;
      index += 3;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      // F0 needs 90–BF (no overlong form), F4 80–8F (at most U+10FFFF).
      if (!continuation(index + 1, byte === 0xf0 ? 0x90 : 0x80, byte === 0xf4 ? 0x8f : 0xbf) || !continuation(index + 2) || !continuation(index + 3)) return index;
      index += 4;
    } else {
      return index;
    }
  }
  return index;
}

/**
 * What a capability bundle's file names and contents must be. The files are
 * unpacked into sandboxes and shown in dashboards and terminals, so a name
 * must stay inside the bundle once any consumer has percent-decoded it, and
 * must not hide or reorder what a person reads. Pure functions, no I/O.
 */
import { INDEX_ENTRY_BUDGET, UUID_BYTES } from '../../core/validation/index-entry';

export const MAX_BUNDLE_PATH_LENGTH = 1024;
/** A path is the key of its file's row with its bundle's id: together they fit one index entry. */
export const MAX_BUNDLE_PATH_BYTES = INDEX_ENTRY_BUDGET - UUID_BYTES;
/** Most file systems refuse a longer file name (bytes of UTF-8). */
export const MAX_BUNDLE_SEGMENT_BYTES = 255;
/** More layers of percent-encoding than any honest name needs. */
const MAX_DECODE_ROUNDS = 3;

const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
/** Characters a percent-escape must not stand for: they would change the path's shape once decoded. */
const ENCODED_STRUCTURE = /[./\\]/;
/**
 * C0 and C1 controls (NUL, newline, escape, …) and DEL; the Arabic letter
 * mark, zero-width spaces and joiners, LRM/RLM; line and paragraph
 * separators; bidirectional embeddings and overrides (U+202A–U+202E); word
 * joiner and invisible operators; bidirectional isolates (U+2066–U+2069);
 * the byte order mark.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const HAZARDOUS_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const DRIVE_PREFIX = /^[A-Za-z]:/;
/** Segments Windows treats as a device, whatever the extension (and with the trailing dots and spaces it drops: `nul `, `con .txt`). */
const DEVICE_NAME = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:[. ].*)?$/i;
const DOTS_AND_SPACES = /^[.\s]+$/;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One layer of percent-decoding; a problem when an escape is not UTF-8 or stands for a '.', '/' or '\'. */
function decodeLayer(value: string): { text: string; problem: string | null } {
  let problem: string | null = null;
  const text = value.replace(ESCAPE_RUN, (run) => {
    let decoded: string;
    try {
      decoded = strictUtf8.decode(Buffer.from(run.replace(/%/g, ''), 'hex'));
    } catch {
      problem ??= 'must not contain percent-escapes that are not UTF-8';
      return run;
    }
    if (ENCODED_STRUCTURE.test(decoded)) problem ??= "must not percent-encode '.', '/' or '\\'";
    return decoded;
  });
  return { text, problem };
}

/**
 * Why `value` is not an acceptable file path inside a bundle, or null when
 * it is: a relative path of non-empty segments, without `.`/`..` (nor any
 * segment of dots and spaces), a leading `/`, a drive letter, a backslash,
 * control, bidirectional or invisible formatting characters, Windows device
 * names or segments over 255 bytes. Percent-escapes are decoded (repeatedly,
 * until nothing changes) and the decoded form must pass too; an escape may
 * not stand for `.`, `/` or `\` at all.
 */
export function bundlePathProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_BUNDLE_PATH_LENGTH) return `must have at most ${MAX_BUNDLE_PATH_LENGTH} characters`;
  if (Buffer.byteLength(value, 'utf8') > MAX_BUNDLE_PATH_BYTES) return `must take at most ${MAX_BUNDLE_PATH_BYTES} bytes of UTF-8`;
  let path = value;
  for (let round = 0; ; round += 1) {
    const { text, problem } = decodeLayer(path);
    if (problem) return problem;
    if (text === path) break;
    if (round === MAX_DECODE_ROUNDS) return 'must not be percent-encoded more than three times over';
    path = text;
  }
  if (HAZARDOUS_CHARACTERS.test(path)) return 'must not contain control, bidirectional or invisible formatting characters';
  if (path.startsWith('/')) return "must be relative (no leading '/')";
  if (DRIVE_PREFIX.test(path)) return 'must not start with a drive letter';
  if (path.includes('\\')) return 'must not contain a backslash';
  for (const segment of path.split('/')) {
    if (segment === '') return "must not have an empty segment ('//' or a trailing '/')";
    if (DOTS_AND_SPACES.test(segment)) return "must not have a '.' or '..' segment (nor one of only dots and spaces)";
    if (DEVICE_NAME.test(segment)) return `must not use the reserved device name '${segment}'`;
    if (Buffer.byteLength(segment, 'utf8') > MAX_BUNDLE_SEGMENT_BYTES) return `must not have a segment over ${MAX_BUNDLE_SEGMENT_BYTES} bytes`;
  }
  return null;
}

const BASE64_ALPHABET = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64_ALPHABET[char.charCodeAt(0)] = 1;

/**
 * Strict base64 (standard alphabet, length a multiple of 4, `=` padding only
 * at the end), checked with one pass over the characters: a backtracking
 * regular expression overflows V8's stack on inputs of a few MiB, and the
 * capability route takes 50 MiB.
 */
export function isStrictBase64(value: unknown): boolean {
  if (typeof value !== 'string' || value.length % 4 !== 0) return false;
  let end = value.length;
  if (end > 0 && value.charCodeAt(end - 1) === 0x3d) end -= value.charCodeAt(end - 2) === 0x3d ? 2 : 1;
  for (let index = 0; index < end; index += 1) {
    const code = value.charCodeAt(index);
    if (code > 127 || BASE64_ALPHABET[code] === 0) return false;
  }
  return true;
}

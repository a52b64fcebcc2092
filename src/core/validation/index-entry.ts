import { ValidationError } from '../errors';

/**
 * What one entry of a btree index may hold of a row's text, in bytes. The
 * limit is 2704 bytes per entry (a third of a page); the fixed-size columns
 * of the indexes that carry text take under 200 of it, and values that do
 * not compress are stored as they are, so a longer entry is a database
 * error (54000) where it should be a 422.
 */
export const INDEX_ENTRY_BUDGET = 2400;

/** Bytes of text as stored (UTF-8); none for null. */
export const textBytes = (value: string | null | undefined): number => (value ? Buffer.byteLength(value, 'utf8') : 0);

/** An upper bound of a text[] as stored: the array header, then each element's length word, bytes and padding to 4 bytes. */
export const textArrayBytes = (values: readonly string[] | null | undefined): number => (values ? 24 + values.reduce((sum, value) => sum + 4 + textBytes(value) + 3, 0) : 0);

/** What a uuid takes of an index entry. */
export const UUID_BYTES = 16;

/**
 * 422 `too_long` at `loc` when the text a row carries in an index entry
 * (`bytes`, summed by the caller from textBytes and friends) is over
 * INDEX_ENTRY_BUDGET; `what` names those values in the message.
 */
export function checkIndexEntry(bytes: number, what: string, loc: (string | number)[]): void {
  if (bytes > INDEX_ENTRY_BUDGET) {
    throw new ValidationError([{ loc, msg: `${what} take ${bytes} bytes together (stored form); at most ${INDEX_ENTRY_BUDGET} are allowed`, type: 'too_long' }]);
  }
}

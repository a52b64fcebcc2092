import { config } from '../../config/config';
import { ValidationError } from './app-error';

/**
 * The answer to a request whose reply would pass MAX_REPLY_BYTES: 422
 * validation_error at `loc` (the GraphQL query, a REST query string), as the
 * GraphQL budget declines a query: the request is well-formed and declined
 * for the size of what it asks. Not 413, which is about the request's own
 * body.
 */
export function replyTooLarge(loc: (string | number)[], bytes: number | null): ValidationError {
  const max = config().MAX_REPLY_BYTES;
  const size = bytes === null ? `over the limit of ${max} bytes` : `${bytes} bytes, over the limit of ${max}`;
  const msg = `The reply would be ${size}; narrow the query (a smaller limit or page, fewer fields)`;
  return new ValidationError([{ loc, msg, type: 'reply_too_large' }], msg);
}

/** The same answer for a request one of whose statements brought back more than MAX_STATEMENT_READ_BYTES (db/read-bound.ts). */
export function readTooLarge(loc: (string | number)[]): ValidationError {
  const msg = `The request reads more than ${config().MAX_STATEMENT_READ_BYTES} bytes at once; narrow the query (a smaller limit or page, fewer fields)`;
  return new ValidationError([{ loc, msg, type: 'reply_too_large' }], msg);
}

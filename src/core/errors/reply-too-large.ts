import { config } from '../../config/config';
import { ValidationError } from './app-error';

/** The transport a request came by, which says where a reply too large is located. */
export type Transport = 'rest' | 'graphql';

/** What the request asked, where the size of what it asks is declined: a REST route's query string, the GraphQL document. */
const ASKED: Record<Transport, (string | number)[]> = { rest: ['query'], graphql: ['body', 'query'] };

/** 422 reply_too_large at what the request asked, with `msg`. */
function declined(transport: Transport, msg: string): ValidationError {
  return new ValidationError([{ loc: ASKED[transport], msg, type: 'reply_too_large' }], msg);
}

/**
 * The answer to a request whose reply would pass MAX_REPLY_BYTES: 422
 * validation_error at what it asked (the GraphQL query, a REST query
 * string), as the GraphQL budget declines a query: the request is
 * well-formed and declined for the size of what it asks. Not 413, which is
 * about the request's own body.
 */
export function replyTooLarge(transport: Transport, bytes: number | null): ValidationError {
  const max = config().MAX_REPLY_BYTES;
  const size = bytes === null ? `over the limit of ${max} bytes` : `${bytes} bytes, over the limit of ${max}`;
  return declined(transport, `The reply would be ${size}; narrow the query (a smaller limit or page, fewer fields)`);
}

/** The same answer for a request one of whose statements brought back more than MAX_STATEMENT_READ_BYTES (db/read-bound.ts). */
export function readTooLarge(transport: Transport): ValidationError {
  return declined(transport, `The request reads more than ${config().MAX_STATEMENT_READ_BYTES} bytes at once; narrow the query (a smaller limit or page, fewer fields)`);
}

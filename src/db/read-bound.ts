import type { Client } from 'pg';
import { config } from '../config/config';
import { logger } from '../config/logger';
import { StatementReadTooLarge } from './driver-errors';

/**
 * What one statement may bring back (MAX_STATEMENT_READ_BYTES, 128 MiB).
 * Replies are measured when built (http/respond.ts) and the reads of large
 * rows are held to the request's reply budget as they load
 * (core/reply-budget.ts); this bounds every other read, whatever built it (a
 * list that loads whole rows of large columns, a nested navigation over
 * many parents), so no statement makes a worker hold more than that (a
 * request of many statements, such as aliased GraphQL fields, may hold that
 * much for each at once).
 */
export const maxStatementReadBytes = () => config().MAX_STATEMENT_READ_BYTES;

const RECEIVED = Symbol('receivedBytes');
type CountedQuery = { [RECEIVED]?: number; _canceledDueToError?: unknown };

/**
 * Counts the bytes of every row a connection receives for its statement
 * (each DataRow message, as PostgreSQL sent it) and, past
 * maxStatementReadBytes, drops the statement's later rows as they arrive and
 * fails it with StatementReadTooLarge once PostgreSQL has finished it (the
 * driver's own way for a row it cannot parse: the query's
 * `_canceledDueToError`, node-postgres 8). Node then holds at most the bound
 * and one row of a statement, however many rows it asked for. Called once
 * per connection, when it is made (database.ts).
 */
export function boundStatementReads(client: Client): void {
  const connection = (client as unknown as { connection: { on(event: 'dataRow', listener: (message: { length: number }) => void): void } }).connection;
  // After the client's own listener: the row that passes the bound is kept, the later ones are not.
  connection.on('dataRow', (message) => {
    const query = (client as unknown as { activeQuery?: CountedQuery | null }).activeQuery;
    if (!query || query._canceledDueToError) return;
    const received = (query[RECEIVED] ?? 0) + message.length;
    query[RECEIVED] = received;
    if (received > maxStatementReadBytes()) {
      query._canceledDueToError = new StatementReadTooLarge(maxStatementReadBytes());
      logger.warn({ limit: maxStatementReadBytes() }, 'a statement brought back more than MAX_STATEMENT_READ_BYTES; its later rows are dropped');
    }
  });
}

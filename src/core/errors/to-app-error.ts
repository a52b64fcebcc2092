import { GraphQLError } from 'graphql';
import { DatabaseError as PgDatabaseError } from 'pg';
import {
  ConnectionAcquireTimeoutError,
  ConnectionError,
  DatabaseError,
  ForeignKeyConstraintError,
  UniqueConstraintError,
  ValidationError as SequelizeValidationError,
} from 'sequelize';
import { isDriverError, StatementReadTooLarge } from '../../db/driver-errors';
import { readTooLarge, type Transport } from './reply-too-large';
import { AppError, AlreadyExistsError, ConflictError, DatabaseUnavailableError, GatewayTimeoutError, ServerError, ValidationError } from './app-error';

/**
 * Normalises anything thrown during a request into an AppError. Unknown
 * failures become a masked 500; the original is returned beside it for logging.
 * `transport` places what it says of the request itself (the query of a REST
 * route, the document of a GraphQL one).
 */
export function toAppError(error: unknown, transport: Transport = 'rest'): { appError: AppError; unexpected: unknown | null } {
  const current = thrownValue(error);
  if (current instanceof AppError) return { appError: current, unexpected: null };
  // A statement that brought back more than any reply could hold (db/read-bound.ts), from Sequelize or the driver alike.
  if (current instanceof StatementReadTooLarge || (current instanceof DatabaseError && current.parent instanceof StatementReadTooLarge)) {
    return { appError: readTooLarge(transport), unexpected: null };
  }
  // Sequelize's classes for its own statements, the SQLSTATE for the driver's errors (src/db/hot.ts): 23505, 23503.
  if (current instanceof UniqueConstraintError || sqlState(current) === '23505') {
    return { appError: new AlreadyExistsError('A resource with these values already exists'), unexpected: null };
  }
  if (current instanceof ForeignKeyConstraintError || sqlState(current) === '23503') {
    return { appError: new ConflictError('The resource is referenced by or references another resource'), unexpected: null };
  }
  if (current instanceof SequelizeValidationError) {
    return {
      appError: new ValidationError(
        current.errors.map((item) => ({ loc: ['body', item.path ?? 'value'], msg: item.message, type: 'value_error' })),
      ),
      unexpected: null,
    };
  }
  // Every connection of the pool stayed busy (or none could be opened) for DB_POOL_ACQUIRE_TIMEOUT_MS.
  if (current instanceof ConnectionAcquireTimeoutError) return { appError: new DatabaseUnavailableError(5, 'No database connection became free in time; retry later'), unexpected: null };
  if (current instanceof ConnectionError || isConnectionFailure(current)) return { appError: new DatabaseUnavailableError(), unexpected: null };
  if (isStatementTimeout(current)) return { appError: new GatewayTimeoutError(), unexpected: null };
  if (refusedValue(current)) {
    const message = 'A value of the request cannot be stored: too long, out of range or malformed';
    return { appError: new ValidationError([{ loc: ['body'], msg: message, type: 'value_error' }], message), unexpected: null };
  }
  if (current instanceof GraphQLError) {
    // A GraphQL-level failure that carries no AppError: bad query or variables.
    const code = current.extensions?.code;
    if (code === 'GRAPHQL_VALIDATION_FAILED' || code === 'BAD_USER_INPUT' || code === 'GRAPHQL_PARSE_FAILED' || !current.originalError) {
      return {
        appError: new ValidationError([{ loc: ['body'], msg: current.message, type: 'value_error' }], current.message),
        unexpected: null,
      };
    }
  }
  return { appError: new ServerError(), unexpected: current };
}

/** The value thrown: GraphQL wraps resolver errors (once or more). */
function thrownValue(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/**
 * The error node-postgres raised, when `error` is one: the `parent` of a
 * Sequelize DatabaseError (Sequelize wraps the failures of its statements),
 * or an error src/db/hot.ts marked as the driver's. Null for anything else.
 */
function driverErrorOf(error: unknown): unknown {
  if (error instanceof DatabaseError) return error.parent;
  return isDriverError(error) || error instanceof PgDatabaseError ? error : null;
}

/** 57014 query_canceled: the statement ran past statement_timeout (DB_STATEMENT_TIMEOUT_MS; from Sequelize, or from pg directly on the hot path): 504. */
export const isStatementTimeout = (error: unknown): boolean => sqlState(error) === '57014';

/** The SQLSTATE of a Sequelize error or of a pg driver error alike (PostgreSQL answered with an error). */
export function sqlState(error: unknown): string | undefined {
  const driver = driverErrorOf(error);
  return driver instanceof PgDatabaseError ? driver.code : undefined;
}

/**
 * SQLSTATEs of a value PostgreSQL refuses as it stores or casts it, which a
 * request's input can cause: too long (22001), out of range (22003), a
 * malformed or overflowing date or time (22007, 22008), a character the
 * encoding cannot hold (22021, 22P05: a NUL), malformed text for its type
 * (22P02), an index entry too large (54000). Other data exceptions (a COPY
 * text the service wrote wrong, a division by zero) stay server errors.
 */
const REFUSED_VALUE_STATES = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05', '54000']);

/**
 * A value PostgreSQL refused that no validation caught (REFUSED_VALUE_STATES).
 * It came with the request, so it is 422, not a masked 500; reportError
 * logs it as a warning, since the validation that should have said where is
 * missing.
 */
function refusedValue(error: unknown): boolean {
  return REFUSED_VALUE_STATES.has(sqlState(error) ?? '');
}

/** SQLSTATEs of a server that went away: class 08 (connection exception) and 57P01-03 (shutdown, crash, not accepting yet). */
const GONE_STATES = new Set(['57P01', '57P02', '57P03']);
/** Socket error codes of a connection to the database that broke or could not be made. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The database cannot be reached or went away under a running statement: as
 * unavailable as a refused connection (503). By class and code: Sequelize's
 * ConnectionError family (no connection could be made or acquired), a
 * SQLSTATE PostgreSQL sent before closing the connection, a socket error
 * code, and only then, for node-postgres's own failures that carry neither,
 * their message (pgConnectionLost). Codes and messages count only on an
 * error that came from the driver (see driverErrorOf).
 */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  const driver = driverErrorOf(error);
  if (!driver) return false;
  if (driver instanceof PgDatabaseError) return driver.code?.startsWith('08') === true || GONE_STATES.has(driver.code ?? '');
  const code = (driver as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  return pgConnectionLost(driver);
}

/**
 * node-postgres reports a connection that ended under it (the server or the
 * network closed it), and later statements on that client, with plain
 * Errors that carry no code: their message is all it offers. Kept to these
 * few texts of node_modules/pg/lib/client.js (pg 8); a message not listed
 * here stays a 500 and is logged as unexpected.
 */
const PG_CONNECTION_LOST = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
]);
function pgConnectionLost(error: unknown): boolean {
  return error instanceof Error && PG_CONNECTION_LOST.has(error.message);
}

/**
 * toAppError plus the log line it deserves, in one place for every
 * transport: unexpected failures at error level (they answer a masked 500),
 * an unreachable database or a cancelled statement at warn level (503, 504).
 */
export function reportError(
  logger: { error(fields: object, message: string): void; warn(fields: object, message: string): void },
  error: unknown,
  fields: Record<string, unknown> = {},
  transport: Transport = 'rest',
): AppError {
  const { appError, unexpected } = toAppError(error, transport);
  const cause = thrownValue(error);
  if (unexpected) logger.error({ ...fields, err: unexpected }, 'unexpected error');
  else if (refusedValue(cause)) {
    logger.warn({ ...fields, sqlstate: sqlState(cause), cause: cause instanceof Error ? cause.message : String(cause) }, 'a value the database refused reached it unvalidated');
  } else if (appError.status === 503 || appError.status === 504) {
    logger.warn({ ...fields, type: appError.type, status: appError.status, cause: cause instanceof Error ? cause.message : String(cause) }, 'database unavailable or too slow');
  }
  return appError;
}

import { GraphQLError } from 'graphql';
import {
  ConnectionError,
  DatabaseError,
  ForeignKeyConstraintError,
  UniqueConstraintError,
  ValidationError as SequelizeValidationError,
} from 'sequelize';
import { AppError, AlreadyExistsError, ConflictError, DatabaseUnavailableError, GatewayTimeoutError, ServerError, ValidationError } from './app-error';

/**
 * Normalises anything thrown during a request into an AppError. Unknown
 * failures become a masked 500; the original is returned beside it for logging.
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: unknown | null } {
  let current: unknown = error;
  // GraphQL wraps resolver errors; unwrap to the thrown value.
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  if (current instanceof AppError) return { appError: current, unexpected: null };
  if (current instanceof UniqueConstraintError) {
    return { appError: new AlreadyExistsError('A resource with these values already exists'), unexpected: null };
  }
  if (current instanceof ForeignKeyConstraintError) {
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
  if (current instanceof ConnectionError || isConnectionFailure(current)) return { appError: new DatabaseUnavailableError(), unexpected: null };
  // 57014 query_canceled: the statement ran past statement_timeout (from Sequelize, or from pg directly on the hot path).
  if (sqlState(current) === '57014') return { appError: new GatewayTimeoutError(), unexpected: null };
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

function pgCode(error: DatabaseError): string | undefined {
  return (error.original as { code?: string } | undefined)?.code ?? (error.parent as { code?: string } | undefined)?.code;
}

/** The SQLSTATE of a Sequelize error or of a pg driver error alike. */
function sqlState(error: unknown): string | undefined {
  if (error instanceof DatabaseError) return pgCode(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The server went away under a running statement (class 08 connection
 * exceptions, 57P01-03 shutdown or crash) or the socket broke: as unavailable
 * as a refused connection.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = sqlState(error);
  if (!code) return false;
  return code.startsWith('08') || ['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code);
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
): AppError {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) logger.error({ ...fields, err: unexpected }, 'unexpected error');
  else if (appError.status === 503 || appError.status === 504) {
    const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    logger.warn({ ...fields, type: appError.type, status: appError.status, cause: cause instanceof Error ? cause.message : String(cause) }, 'database unavailable or too slow');
  }
  return appError;
}

/**
 * One typed error hierarchy for the whole service. Services throw these; the
 * GraphQL formatter (core/errors/graphql-errors.ts) and the REST envelope
 * (core/errors/http-envelope.ts) are the only two places that map them.
 */
/** The error types every module may answer with; the core maps them to statuses. */
export const CORE_ERROR_TYPES = [
  'already_exists_error',
  'app_error',
  'authentication_error',
  'conflict_error',
  'database_error',
  'expired_token_error',
  'forbidden_error',
  'gateway_timeout_error',
  'invalid_error',
  'method_not_allowed_error',
  'not_found_error',
  'server_error',
  'token_error',
  'upgrade_required_error',
  'usage_limit_exceeded_error',
  'user_suspended',
  'validation_error',
] as const;

/**
 * Error types a module adds (declared in its descriptor's `errorTypes` and
 * added to this interface beside it), so `ErrorType` stays one union without
 * core naming a module.
 */
export interface ErrorTypeRegistry {}

export type ErrorType = (typeof CORE_ERROR_TYPES)[number] | (keyof ErrorTypeRegistry & string);

/** For a module's `declare module` augmentation: `interface ErrorTypeRegistry extends ErrorTypeNames<typeof MY_ERRORS> {}`. */
export type ErrorTypeNames<T extends readonly string[]> = Record<T[number], true>;

/** One item of a 422 envelope, pydantic style. */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly errors: ValidationItem[] | null;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    type: ErrorType,
    detail: string,
    options: { errors?: ValidationItem[] | null; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = new.target.name;
    this.status = status;
    this.type = type;
    this.errors = options.errors ?? null;
    this.headers = options.headers ?? {};
  }
}

export class InvalidError extends AppError {
  constructor(detail: string, type: ErrorType = 'invalid_error') {
    super(400, type, detail);
  }
}

/** A body over a route's limit, as sent or once inflated (413); the connection closes, the rest unread. */
export class PayloadTooLargeError extends AppError {
  constructor(detail: string) {
    super(413, 'invalid_error', detail, { headers: { Connection: 'close' } });
  }
}

/** A Content-Type or Content-Encoding the route does not read (415). */
export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: string) {
    super(415, 'invalid_error', detail);
  }
}

/** 401, with the challenge HTTP asks of it (RFC 9110): a bearer token (or an API key in X-API-Key). */
export class AuthenticationError extends AppError {
  constructor(
    detail = 'Authentication required',
    type: ErrorType = 'authentication_error',
  ) {
    super(401, type, detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

export class ForbiddenError extends AppError {
  constructor(detail = 'You do not have permission to perform this action', type: ErrorType = 'forbidden_error') {
    super(403, type, detail);
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource', type: ErrorType = 'not_found_error') {
    super(404, type, `${what} not found`);
  }
}

/** A known path asked with a method it does not have: 405 with the methods it has (Allow). */
export class MethodNotAllowedError extends AppError {
  constructor(allowed: string[]) {
    super(405, 'method_not_allowed_error', `Method not allowed; this path accepts ${allowed.join(', ')}`, { headers: { Allow: allowed.join(', ') } });
  }
}

export class AlreadyExistsError extends AppError {
  constructor(detail = 'Resource already exists') {
    super(409, 'already_exists_error', detail);
  }
}

export class ConflictError extends AppError {
  constructor(detail: string) {
    super(409, 'conflict_error', detail);
  }
}

/**
 * The most problems a 422 lists: a request of a thousand bad list items is
 * told about the first ones (and how many there were), not sent a reply
 * larger than itself.
 */
export const MAX_VALIDATION_ITEMS = 100;

/**
 * The most problems input checking collects before it stops looking: past
 * it, a 422 says there were at least this many (checking a million bad list
 * items to count them would hold the worker for seconds).
 */
export const MAX_COLLECTED_PROBLEMS = 1000;

export class ValidationError extends AppError {
  constructor(errors: ValidationItem[], detail = 'Request validation failed') {
    const more = errors.length - MAX_VALIDATION_ITEMS;
    const count = errors.length >= MAX_COLLECTED_PROBLEMS ? `${MAX_COLLECTED_PROBLEMS} or more` : String(errors.length);
    super(422, 'validation_error', more > 0 ? `${detail} (the first ${MAX_VALIDATION_ITEMS} of ${count} problems)` : detail, {
      errors: more > 0 ? errors.slice(0, MAX_VALIDATION_ITEMS) : errors,
    });
  }
}

export class UpgradeRequiredError extends AppError {
  constructor(detail: string) {
    super(426, 'upgrade_required_error', detail);
  }
}

export class RateLimitedError extends AppError {
  /** `limit`: the quota per minute, reported as X-RateLimit-Limit with X-RateLimit-Remaining 0, as on the replies within it. */
  constructor(retryAfterSeconds: number, limit?: number) {
    super(429, 'usage_limit_exceeded_error', 'Rate limit exceeded; retry later', {
      headers: {
        'Retry-After': String(retryAfterSeconds),
        ...(limit === undefined ? {} : { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0' }),
      },
    });
  }
}

/** A statement cancelled by statement_timeout: the request took longer than the service allows. */
export class GatewayTimeoutError extends AppError {
  constructor(detail = 'The request took too long and was cancelled; narrow it or retry later') {
    super(504, 'gateway_timeout_error', detail);
  }
}

/**
 * The database cannot be reached. 503 is outside the spec's status list, but
 * /health/ready answers it too and load balancers and clients expect it with
 * Retry-After for a dependency that is down.
 */
export class DatabaseUnavailableError extends AppError {
  constructor(retryAfterSeconds = 5, detail = 'The database is unavailable; retry later') {
    super(503, 'database_error', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

export class ServerError extends AppError {
  constructor(detail = 'Internal server error') {
    super(500, 'server_error', detail);
  }
}

/** Shorthand for a single 422 item. */
export function validationFailure(loc: (string | number)[], msg: string, type = 'value_error'): ValidationError {
  return new ValidationError([{ loc, msg, type }]);
}

/**
 * Errors node-postgres raises for the statements src/db/hot.ts sends itself.
 * Sequelize wraps the errors of its own statements in its `DatabaseError`
 * (the driver's error is its `parent`), so their origin is plain; these come
 * bare, so they are marked here. core/errors/to-app-error.ts only reads a
 * socket error code (ECONNRESET, EPIPE, …) or one of node-postgres's
 * connection messages as "the database went away" on an error known to come
 * from the database: the same codes come from elsewhere too (a client that
 * hangs up mid-body gets ECONNRESET on its request stream).
 */
const FROM_DRIVER = Symbol('postgresDriverError');

/** Marks `error` as raised by node-postgres for a statement of ours, and returns it. */
export function fromDriver<T>(error: T): T {
  if (error !== null && typeof error === 'object' && !Object.isFrozen(error)) {
    Object.defineProperty(error, FROM_DRIVER, { value: true, enumerable: false });
  }
  return error;
}

/**
 * A statement whose rows came to more than a statement may bring back
 * (boundStatementReads): its later rows were dropped as they arrived.
 */
export class StatementReadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`A statement's rows came to more than ${limit} bytes`);
  }
}

export function isDriverError(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { [FROM_DRIVER]?: boolean })[FROM_DRIVER] === true;
}

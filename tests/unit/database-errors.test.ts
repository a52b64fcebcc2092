import { DatabaseError as PgDatabaseError } from 'pg';
import { ConnectionRefusedError, DatabaseError, ForeignKeyConstraintError, UniqueConstraintError } from 'sequelize';
import { reportError, toAppError, toEnvelope } from '../../src/core/errors';
import { fromDriver } from '../../src/db/driver-errors';

/**
 * How database failures map (src/core/errors/to-app-error.ts): by class and
 * code, and by node-postgres's message only where it offers nothing else;
 * codes and messages count only on errors that came from the driver.
 */
function pgError(code: string, message = 'server error'): PgDatabaseError {
  const error = new PgDatabaseError(message, 0, 'error');
  error.code = code;
  return error;
}

function socketError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`read ${code}`), { code, syscall: 'read' });
}

/** What Sequelize throws for a failed statement: its DatabaseError around the driver's error (with the statement). */
function sequelizeError(parent: Error): DatabaseError {
  return new DatabaseError(Object.assign(parent, { sql: 'SELECT 1' }));
}

const statusOf = (error: unknown) => toAppError(error).appError.status;

describe('database failures', () => {
  it.each([
    ['a refused connection (Sequelize)', new ConnectionRefusedError(socketError('ECONNREFUSED'))],
    ['57P01 terminated by an administrator (Sequelize)', sequelizeError(pgError('57P01'))],
    ['57P01 on the direct path', fromDriver(pgError('57P01'))],
    ['08006 connection failure', fromDriver(pgError('08006'))],
    ['"Connection terminated unexpectedly" (Sequelize)', sequelizeError(new Error('Connection terminated unexpectedly'))],
    ['"Connection terminated unexpectedly" on the direct path', fromDriver(new Error('Connection terminated unexpectedly'))],
    ['a client no longer queryable on the direct path', fromDriver(new Error('Client has encountered a connection error and is not queryable'))],
    ['ECONNRESET under a statement (Sequelize)', sequelizeError(socketError('ECONNRESET'))],
    ['EPIPE on the direct path', fromDriver(socketError('EPIPE'))],
  ])('answers 503 database_error with Retry-After for %s', (_, error) => {
    const { appError, unexpected } = toAppError(error);
    expect([appError.status, appError.type, unexpected]).toEqual([503, 'database_error', null]);
    expect(appError.headers['Retry-After']).toBeTruthy();
  });

  it.each([
    ['22001 value too long (Sequelize)', sequelizeError(pgError('22001', 'value too long for type character varying(255)'))],
    ['22021 a NUL character on the direct path', fromDriver(pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'))],
    ['22P02 malformed text for its type', fromDriver(pgError('22P02', 'invalid input syntax for type uuid'))],
    ['54000 an index entry too large', sequelizeError(pgError('54000', 'index row size 3072 exceeds btree version 4 maximum 2704'))],
  ])('answers a value the database refused (%s) 422 at the body, logged as a warning without its text in the reply', (_, error) => {
    const { appError, unexpected } = toAppError(error);
    expect([appError.status, appError.type, unexpected]).toEqual([422, 'validation_error', null]);
    expect(toEnvelope(appError)).toMatchObject({ errors: [{ loc: ['body'], type: 'value_error' }] });
    expect(JSON.stringify(toEnvelope(appError))).not.toMatch(/btree|varchar|varying|uuid|0x00/);
    const logged: { level: string; message: string }[] = [];
    const logger = { error: (_fields: object, message: string) => logged.push({ level: 'error', message }), warn: (_fields: object, message: string) => logged.push({ level: 'warn', message }) };
    expect(reportError(logger, error).status).toBe(422);
    expect(logged).toEqual([{ level: 'warn', message: expect.stringContaining('refused') }]);
  });

  it('answers 504 for a statement cancelled at statement_timeout, by either path', () => {
    expect(statusOf(sequelizeError(pgError('57014')))).toBe(504);
    expect(statusOf(fromDriver(pgError('57014')))).toBe(504);
  });

  it.each([
    ['a client hanging up mid-body (ECONNRESET on the request stream)', Object.assign(new Error('aborted'), { code: 'ECONNRESET' })],
    ['a socket error that did not come from the database', socketError('ECONNRESET')],
    ['the same message from elsewhere', new Error('Connection terminated unexpectedly')],
    ['another driver message', fromDriver(new Error('Query values must be an array'))],
    ['an ordinary statement error', sequelizeError(pgError('42P01', 'relation does not exist'))],
    ['a data exception of the service\'s own making (22012 division by zero)', sequelizeError(pgError('22012', 'division by zero'))],
    ['a COPY text the service wrote wrong (22P04)', fromDriver(pgError('22P04', 'missing data for column'))],
  ])('keeps %s a masked 500', (_, error) => {
    expect(statusOf(error)).toBe(500);
  });

  it('answers a unique violation with 409 already_exists_error, from Sequelize or from the driver (SQLSTATE 23505)', () => {
    const fromSequelize = toAppError(new UniqueConstraintError({ parent: Object.assign(pgError('23505'), { sql: 'INSERT' }) }));
    const direct = toAppError(fromDriver(pgError('23505', 'duplicate key value violates unique constraint')));
    expect(direct).toEqual(fromSequelize);
    expect([direct.appError.status, direct.appError.type, direct.unexpected]).toEqual([409, 'already_exists_error', null]);
  });

  it('answers a foreign key violation with 409 conflict_error, from Sequelize or from the driver (SQLSTATE 23503)', () => {
    const fromSequelize = toAppError(new ForeignKeyConstraintError({ parent: Object.assign(pgError('23503'), { sql: 'DELETE' }) }));
    const direct = toAppError(fromDriver(pgError('23503', 'update or delete violates foreign key constraint')));
    expect(direct).toEqual(fromSequelize);
    expect([direct.appError.status, direct.appError.type, direct.unexpected]).toEqual([409, 'conflict_error', null]);
  });
});

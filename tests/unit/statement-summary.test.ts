import { statementSummary } from '../../src/core/telemetry';

/** The service's own SQL spans (core/telemetry.ts) carry no value a statement inlined. */
describe('statementSummary', () => {
  it('writes each string literal as ? and folds whitespace', () => {
    expect(statementSummary(`SELECT "id" FROM "users"\n  WHERE "email" = 'zed@example.com' AND "name" = 'O''Brien' LIMIT 1;`)).toBe(
      `SELECT "id" FROM "users" WHERE "email" = '?' AND "name" = '?' LIMIT 1;`,
    );
    expect(statementSummary('SELECT $1::text')).toBe('SELECT $1::text');
  });
});

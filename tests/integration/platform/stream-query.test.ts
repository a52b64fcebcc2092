import { database } from '../../../src/db/database';
import { plainQuery, streamQuery } from '../../../src/db/hot';
import { useTestApp } from '../../helpers/test-app';

/** streamQuery: rows handed over as PostgreSQL sends them, in order, parsed as plainQuery's; a failing consumer never reaches the socket handler. */
useTestApp();

/** Sequelize's pool (sequelize-pool): `using` is how many connections are checked out. */
const pool = () => (database().connectionManager as unknown as { pool: { using: number } }).pool;

const SERIES = `SELECT n, n::text || ' é' AS label, timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second' AS at, ('{"n":' || n || '}')::jsonb AS doc
                  FROM generate_series(1, $count) n ORDER BY n`;

describe('streamQuery', () => {
  it('gives every row in order, with the same values (and type parsers) as plainQuery', async () => {
    const streamed: unknown[][] = [];
    await streamQuery(SERIES, { count: 5000 }, { prepare: 'stream-query-test' }, (values) => streamed.push(values));
    const plain = await plainQuery<{ n: number; label: string; at: Date; doc: object }>(SERIES, { count: 5000 });
    expect(streamed).toHaveLength(5000);
    expect(streamed).toEqual(plain.map((row) => [row.n, row.label, row.at, row.doc]));
    expect(streamed[0][2]).toBeInstanceOf(Date);
  });

  it('stops handing rows to a consumer that threw, rejects with its error once the statement is done, and frees the connection', async () => {
    const seen: number[] = [];
    const failure = new Error('the consumer failed');
    const outcome = streamQuery(SERIES, { count: 3000 }, {}, (values) => {
      seen.push(values[0] as number);
      if (seen.length === 2) throw failure;
    });
    await expect(outcome).rejects.toBe(failure);
    expect(seen).toEqual([1, 2]);
    // The connection went back to the pool, and it (like every other) still answers.
    expect(pool().using).toBe(0);
    const counts = await Promise.all(Array.from({ length: 8 }, () => plainQuery<{ n: number }>('SELECT count(*)::int AS n FROM generate_series(1, $k)', { k: 10 })));
    expect(counts.map(([row]) => row.n)).toEqual(Array(8).fill(10));
    expect(pool().using).toBe(0);
  });

  it('rejects with PostgreSQL’s error when the statement fails after some rows were given', async () => {
    const seen: number[] = [];
    const outcome = streamQuery(`SELECT CASE WHEN n < 3 THEN n ELSE n / (n - n) END AS q FROM generate_series(1, 5) n`, {}, {}, (values) => seen.push(values[0] as number));
    await expect(outcome).rejects.toMatchObject({ code: '22012' });
    expect(seen).toEqual([1, 2]);
    expect(pool().using).toBe(0);
  });
});

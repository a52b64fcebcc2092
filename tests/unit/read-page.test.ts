import 'reflect-metadata';
import { MAX_OFFSET_ROWS, pageRow, readPage } from '../../src/core/pagination';
import { SqlParams } from '../../src/core/graphql-sql/sql-fields';
import { ValidationError } from '../../src/core/errors';

/**
 * A page and its total (decisions §4: a page past the end is empty, with
 * true totals). A page that starts past MAX_OFFSET_ROWS is counted first:
 * empty when past the end, 422 at `page` when rows are there (its OFFSET
 * would scan them), its rows never read.
 */
describe('readPage', () => {
  const reads = () => {
    const calls: string[] = [];
    return {
      calls,
      count: (total: number) => async () => {
        calls.push('count');
        return total;
      },
      rows: async () => {
        calls.push('rows');
        return ['row'];
      },
    };
  };

  it('reads the page and the count side by side within the depth', async () => {
    const read = reads();
    expect(await readPage(MAX_OFFSET_ROWS / 100 + 1, 100, read.count(5), read.rows)).toEqual({ total: 5, rows: ['row'] });
    expect(read.calls.sort()).toEqual(['count', 'rows']);
  });

  it('answers a deeper page past the end empty with the total, without reading rows', async () => {
    const read = reads();
    expect(await readPage(1_000_000, 100, read.count(20_000), read.rows)).toEqual({ total: 20_000, rows: [] });
    expect(read.calls).toEqual(['count']);
  });

  it('refuses a deeper page that has rows with 422 at page, without reading them', async () => {
    const read = reads();
    const refused = await readPage(102, 100, read.count(20_000), read.rows).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).errors).toEqual([expect.objectContaining({ loc: ['page'], type: 'less_than_equal' })]);
    expect(read.calls).toEqual(['count']);
  });

  it('holds the compiled page (pageRow) to the same rule, given its total', () => {
    const ids = () => 'SELECT 1';
    expect(() => pageRow(new SqlParams(), 'p', 20_000, 102, 100, ids)).toThrow(ValidationError);
    expect(pageRow(new SqlParams(), 'p', 10_000, 102, 100, ids)).toContain('AS ids');
    // Past the end, however deep, its ids are read with LIMIT 0: no row is scanned to skip.
    const limits: string[] = [];
    const params = new SqlParams();
    pageRow(params, 'p', 5, 1_000_000, 100, (limit) => (limits.push(limit), 'SELECT 1'));
    expect(params.values[limits[0].slice(1)]).toBe(0);
    pageRow(params, 'p', 5, 1, 100, (limit) => (limits.push(limit), 'SELECT 1'));
    expect(params.values[limits[1].slice(1)]).toBe(100);
  });
});

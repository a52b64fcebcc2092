import { QueryTypes } from 'sequelize';
import { toAppError } from '../../../src/core/errors';
import { database } from '../../../src/db/database';
import { plainQuery } from '../../../src/db/hot';
import { useTestApp } from '../../helpers/test-app';

/** plainQuery `transaction`: the statement runs on the transaction's own connection, and its failures map as Sequelize's do. */
useTestApp();

const pool = () => (database().connectionManager as unknown as { pool: { using: number } }).pool;

describe('plainQuery in a transaction', () => {
  it('runs in the transaction (same backend and transaction id), takes no second connection, and is rolled back with it', async () => {
    const table = `plain_query_tx_${process.pid}_${Date.now()}`;
    await plainQuery(`CREATE TABLE ${table} (id int PRIMARY KEY)`, {});
    const rollback = new Error('roll back');
    const seen = await database()
      .transaction(async (transaction) => {
        const [ours] = await database().query<{ pid: number; tx: string }>('SELECT pg_backend_pid() AS pid, txid_current()::text AS tx', {
          type: QueryTypes.SELECT,
          transaction,
        });
        const [plain] = await plainQuery<{ pid: number; tx: string }>('SELECT pg_backend_pid() AS pid, txid_current()::text AS tx', {}, { transaction });
        const using = pool().using;
        expect(await plainQuery(`INSERT INTO ${table} (id) VALUES ($id) RETURNING id`, { id: 1 }, { transaction })).toEqual([{ id: 1 }]);
        throw Object.assign(rollback, { seen: { same: plain.pid === ours.pid && plain.tx === ours.tx, using } });
      })
      .catch((error: Error & { seen?: { same: boolean; using: number } }) => (error === rollback ? error.seen : Promise.reject(error)));
    expect(seen).toEqual({ same: true, using: 1 });
    const left = await plainQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`, {});
    await plainQuery(`DROP TABLE ${table}`, {});
    expect(left).toEqual([{ n: 0 }]);
  });

  it('refuses a finished transaction, whose connection went back to the pool', async () => {
    const finished = await database().transaction(async (transaction) => transaction);
    await expect(plainQuery('SELECT 1', {}, { transaction: finished })).rejects.toThrow('can no longer be used');
    expect(pool().using).toBe(0);
  });

  it('answers a unique violation it raised with 409, as a Sequelize UniqueConstraintError', async () => {
    const failure = await database()
      .transaction(async (transaction) => {
        await plainQuery('CREATE TEMP TABLE plain_query_unique (id int PRIMARY KEY) ON COMMIT DROP', {}, { transaction });
        await plainQuery('INSERT INTO plain_query_unique (id) VALUES ($id)', { id: 1 }, { transaction });
        await plainQuery('INSERT INTO plain_query_unique (id) VALUES ($id)', { id: 1 }, { transaction });
      })
      .catch((error: unknown) => error);
    expect([toAppError(failure).appError.status, toAppError(failure).appError.type]).toEqual([409, 'already_exists_error']);
    expect(pool().using).toBe(0);
  });
});

/**
 * Returns once a statement waits for a lock that the transaction `query`
 * runs in holds (a guard against a hang, not a timing). Read from pg_locks
 * (pg_stat_activity would be the snapshot of the transaction's first read),
 * and only the waits this transaction blocks, not a suite's running beside.
 */
export async function untilBlocked(query: (sql: string) => Promise<unknown[]>, what: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    if ((await query('SELECT 1 FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))')).length) return;
    if (attempt > 400) throw new Error(`${what} never waited`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

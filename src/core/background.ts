import { logger } from '../config/logger';
import { outsideTransactions } from '../db/database';
import { plainQuery } from '../db/hot';

/**
 * Work that continues after a reply was sent (e.g. mail, so reply timing does
 * not reveal whether an account exists). Failures are logged; shutdown and
 * tests wait for pending work with `drainBackground()`.
 */
const pending = new Set<Promise<void>>();

export function runInBackground(name: string, work: () => Promise<unknown>): void {
  const task: Promise<void> = Promise.resolve()
    .then(() => outsideTransactions(work))
    .then(
      () => undefined,
      (error: unknown) => logger.error({ err: error, task: name }, 'background task failed'),
    )
    .finally(() => pending.delete(task));
  pending.add(task);
}

export async function drainBackground(): Promise<void> {
  while (pending.size) await Promise.all([...pending]);
}

/**
 * A sweep of what expired (`sql`, a DELETE), run in the background after
 * the reply that calls it, at most once per `everyMs` per process (the first
 * call sweeps): tables that anonymous or frequent requests add rows to stay
 * bounded without a timer.
 */
export function expirySweep(name: string, sql: string, everyMs = 10 * 60 * 1000): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < everyMs) return;
    last = now;
    runInBackground(name, () => plainQuery(sql, {}));
  };
}

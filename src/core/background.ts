import { logger } from '../config/logger';

/**
 * Work that continues after a reply was sent (e.g. mail, so reply timing does
 * not reveal whether an account exists). Failures are logged; shutdown and
 * tests wait for pending work with `drainBackground()`.
 */
const pending = new Set<Promise<void>>();

export function runInBackground(name: string, work: () => Promise<unknown>): void {
  const task: Promise<void> = Promise.resolve()
    .then(work)
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

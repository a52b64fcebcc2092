import { config } from '../../config/config';
import { logger } from '../../config/logger';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';

/**
 * The daily partitions of `spans` (migration 0060). Each day of the window a
 * span may fall in (TRACE_RETENTION_DAYS back, DAYS_AHEAD forward) has its
 * partition before the first span of that day arrives; days past the window
 * are dropped whole (DROP TABLE: no DELETE, no vacuum). Run when the first
 * export of a UTC day arrives and hourly by the server; an advisory lock
 * keeps two processes from creating the same partition at once.
 */
export const DAYS_AHEAD = 2;
const DAY_MS = 86_400_000;
const LOCK_KEY = 0x5_9a_25; // pg_advisory_xact_lock key of partition upkeep

const partitionName = (day: Date) => `spans_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
const dayStart = (time: number) => new Date(Math.floor(time / DAY_MS) * DAY_MS);

/** The window of start times a span may have now: [oldest, newest) in microseconds. */
export function acceptedWindow(now = Date.now()): { oldestUs: number; newestUs: number } {
  const oldest = dayStart(now).getTime() - (config().TRACE_RETENTION_DAYS - 1) * DAY_MS;
  const newest = dayStart(now).getTime() + (DAYS_AHEAD + 1) * DAY_MS;
  return { oldestUs: oldest * 1000, newestUs: newest * 1000 };
}

let readyDay: number | null = null;
let running: Promise<void> | null = null;

/** Creates the window's partitions and drops older ones; once per UTC day unless `force`. */
export async function ensureSpanPartitions(force = false, now = Date.now()): Promise<void> {
  const today = dayStart(now).getTime();
  if (!force && readyDay === today) return;
  running ??= upkeep(now)
    .then(() => {
      readyDay = today;
    })
    .finally(() => {
      running = null;
    });
  return running;
}

async function upkeep(now: number): Promise<void> {
  const { oldestUs, newestUs } = acceptedWindow(now);
  await database().transaction(async (transaction) => {
    await plainQuery('SELECT pg_advisory_xact_lock($key)', { key: LOCK_KEY }, { transaction });
    const existing = await plainQuery<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'spans'::regclass`,
      {},
      { transaction },
    );
    const have = new Set(existing.map((row) => row.name));
    const statements: string[] = [];
    for (let day = oldestUs / 1000; day < newestUs / 1000; day += DAY_MS) {
      const name = partitionName(new Date(day));
      if (have.has(name)) continue;
      statements.push(
        `CREATE TABLE ${name} PARTITION OF spans FOR VALUES FROM ('${new Date(day).toISOString()}') TO ('${new Date(day + DAY_MS).toISOString()}')`,
      );
    }
    const oldest = partitionName(new Date(oldestUs / 1000));
    const expired = [...have].filter((name) => /^spans_p\d{8}$/.test(name) && name < oldest);
    for (const name of expired) statements.push(`DROP TABLE ${name}`);
    for (const statement of statements) await plainQuery(statement, {}, { transaction });
    if (expired.length) logger.info({ dropped: expired }, 'span partitions past TRACE_RETENTION_DAYS dropped');
  });
}

/** Hourly upkeep for a running server (the first export of a day also runs it). */
export function startPartitionUpkeep(): () => void {
  const timer = setInterval(() => {
    ensureSpanPartitions(true).catch((error: unknown) => logger.error({ err: error }, 'span partition upkeep failed'));
  }, 3_600_000);
  timer.unref();
  return () => clearInterval(timer);
}

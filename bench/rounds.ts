import { load, median, timeConcurrent, type LoadResult } from './load';
import { wrkAvailable, wrkLoad } from './wrk';

/** One scenario at one number of connections: the service over HTTP beside its statements replayed directly. */
export interface RoundsResult {
  /** HTTP medians over the rounds (p50, p99, req/s). */
  result: LoadResult;
  sqlP50: number;
  /** Per round, for the log: HTTP p50 and direct SQL p50 (ms). */
  httpP50s: number[];
  sqlP50s: number[];
}

/**
 * `rounds` alternated rounds of (direct SQL replayed by `connections`
 * workers for `sqlSeconds`, then HTTP at `connections` for `seconds`), and
 * their medians. Load comes from wrk when installed, else from the in-process
 * loop. Any failed request (non-2xx or socket error) fails the run, since
 * wrk's percentiles would count it.
 */
export async function measureRounds(
  name: string,
  target: string,
  direct: () => Promise<void>,
  options: { token: string; connections: number; rounds: number; seconds: number; sqlSeconds: number; requests: number },
): Promise<RoundsResult> {
  const { token, connections } = options;
  const sqlP50s: number[] = [];
  const results: LoadResult[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    sqlP50s.push((await timeConcurrent(direct, connections, options.sqlSeconds)).p50_ms);
    results.push(
      wrkAvailable()
        ? await wrkLoad(target, { headers: { authorization: `Bearer ${token}` }, connections, seconds: options.seconds })
        : await load(target, { token, connections, count: options.requests, seconds: options.seconds }),
    );
  }
  const errors = results.reduce((sum, item) => sum + item.errors, 0);
  if (errors) throw new Error(`${name}: ${errors} failed requests at ${connections} connections`);
  const result = {
    ...results[0],
    p50_ms: median(results.map((item) => item.p50_ms)),
    p99_ms: median(results.map((item) => item.p99_ms)),
    req_per_s: median(results.map((item) => item.req_per_s)),
  };
  return { result, sqlP50: median(sqlP50s), httpP50s: results.map((item) => item.p50_ms), sqlP50s };
}

/** The log line of one measurement. */
export function roundsLine(name: string, connections: number, measured: RoundsResult, statements: number): string {
  const list = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
  return (
    `${name} @${connections}: HTTP p50 ${list(measured.httpP50s)} ms (median ${measured.result.p50_ms.toFixed(2)}), ${measured.result.req_per_s.toFixed(1)} req/s; ` +
    `direct SQL p50 at ${connections} ${list(measured.sqlP50s)} ms (median ${measured.sqlP50.toFixed(2)}; ${statements} statements)`
  );
}

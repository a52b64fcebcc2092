/**
 * A small loopback load loop: `connections` workers issue GET requests back to
 * back until `count` requests are done or `seconds` have passed. Only
 * 127.0.0.1 targets are accepted.
 */
export interface LoadResult {
  requests: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  req_per_s: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export async function load(
  url: string,
  options: { token: string; connections: number; count: number; seconds: number },
): Promise<LoadResult> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('The load loop only targets 127.0.0.1');
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const started = performance.now();
  const headers = { authorization: `Bearer ${options.token}` };
  async function worker(): Promise<void> {
    while (issued < options.count && performance.now() < deadline) {
      issued += 1;
      const t0 = performance.now();
      const response = await fetch(target, { headers });
      await response.arrayBuffer();
      const elapsed = performance.now() - t0;
      if (response.status !== 200) errors += 1;
      else latencies.push(elapsed);
    }
  }
  await Promise.all(Array.from({ length: options.connections }, () => worker()));
  const wall = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length + errors,
    errors,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    req_per_s: (latencies.length + errors) / wall,
  };
}

/** Times `fn` `times` times (after one warm-up run) and returns sorted milliseconds. */
export async function timeIt(fn: () => Promise<unknown>, times: number): Promise<number[]> {
  await fn();
  const out: number[] = [];
  for (let index = 0; index < times; index += 1) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

/**
 * `fn` run back to back by `concurrency` workers for `seconds` (after one
 * warm-up call each): the direct-SQL side of an HTTP measurement at the same
 * number of connections.
 */
export async function timeConcurrent(fn: () => Promise<unknown>, concurrency: number, seconds: number): Promise<{ p50_ms: number; p99_ms: number; per_s: number }> {
  await Promise.all(Array.from({ length: concurrency }, () => fn()));
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  async function worker(): Promise<void> {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await fn();
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  latencies.sort((a, b) => a - b);
  return { p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), per_s: latencies.length / ((performance.now() - started) / 1000) };
}

/** The median of a few measurements (rounds of one scenario). */
export function median(values: number[]): number {
  if (!values.length) throw new Error('median of nothing (BENCH_ROUNDS must be at least 1)');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

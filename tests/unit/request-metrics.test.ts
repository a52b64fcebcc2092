import { Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, RequestMetrics } from '../../src/core/metrics';

/** Every sample of an exposition text, by metric name and sorted labels. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = (match[2] ?? '').split(/,(?=\w+=")/).filter(Boolean).sort().join(',');
    out.set(`${match[1]}{${labels}}`, Number(match[3]));
  }
  return out;
}

/** The request metrics answer /metrics with the samples of a counter and a histogram over the same observations. */
describe('RequestMetrics', () => {
  it('exposes the same counter and histogram samples as prom-client for the same observations', async () => {
    const ours = new Registry();
    const metrics = new RequestMetrics(ours);
    const reference = new Registry();
    const labelNames = ['method', 'route', 'status'] as const;
    const counter = new Counter({ name: 'http_requests_total', help: 'x', labelNames, registers: [reference] });
    const histogram = new Histogram({ name: 'http_request_duration_seconds', help: 'x', labelNames, buckets: DURATION_BUCKETS, registers: [reference] });

    const routes = ['health', 'graphql', 'Query.sessions'];
    // Values on every bucket bound and either side of it, and beyond the last one.
    const values = [0, ...DURATION_BUCKETS.flatMap((bound) => [bound * 0.999, bound, bound * 1.001]), 42];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let index = 0; index < 2000; index += 1) {
      const method = random() < 0.5 ? 'GET' : 'POST';
      const route = routes[Math.floor(random() * routes.length)];
      const status = [200, 201, 404, 422][Math.floor(random() * 4)];
      const seconds = values[Math.floor(random() * values.length)];
      metrics.record(method, route, status, seconds);
      const labels = { method, route, status: String(status) };
      counter.inc(labels);
      histogram.observe(labels, seconds);
    }

    const expected = samples(await reference.metrics());
    const actual = samples(await ours.metrics());
    expect(expected.size).toBeGreaterThan(100);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, value] of expected) expect([key, actual.get(key)]).toEqual([key, expect.closeTo(value, 9)]);
    expect(await ours.metrics()).toContain('# TYPE http_request_duration_seconds histogram');
    expect(await ours.metrics()).toContain('# TYPE http_requests_total counter');
  });

  it('starts again from zero when the registry resets its metrics', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    metrics.record('GET', 'health', 200, 0.001);
    expect(await registry.metrics()).toContain('http_requests_total{method="GET",route="health",status="200"} 1');
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('route="health"');
    metrics.record('GET', 'health', 200, 0.001);
    expect(await registry.metrics()).toContain('http_requests_total{method="GET",route="health",status="200"} 1');
  });
});

import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';

type MetricType = 'counter' | 'histogram';

/** Prometheus metrics, served at GET /metrics. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
type RequestLabels = { method: string; route: string; status: string };

interface Series {
  labels: RequestLabels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  buckets: number[];
}

/** One metric as prom-client's registry reads it (`get` at scrape time, `reset`). */
interface ScrapedMetric {
  name: string;
  help: string;
  type: MetricType;
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: MetricType; aggregator: 'sum'; values: { labels: object; value: number; metricName?: string }[] }>;
  reset(): void;
}

/**
 * Request count and latency by method, route and status
 * (`http_requests_total`, `http_request_duration_seconds`). Every reply
 * records here, so recording is one Map lookup and a few additions;
 * prom-client's own Counter and Histogram validate and hash their label
 * object on every call (about 0.75 µs together, a measurable share of the
 * health route: bench/README.md, requests). The registry reads the series
 * when /metrics is scraped, in the exposition format prom-client writes for
 * its own counters and histograms.
 */
export class RequestMetrics {
  private readonly series = new Map<string, Series>();

  record(method: string, route: string, status: number | 'aborted', seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0) };
      this.series.set(key, series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket += 1;
    series.buckets[bucket] += 1;
  }

  register(into: Registry): void {
    into.registerMetric(this.metric('http_requests_total', 'HTTP requests by route (operation) and status', 'counter', (series) => [{ labels: series.labels, value: series.count }]));
    into.registerMetric(
      this.metric('http_request_duration_seconds', 'HTTP request latency by route (operation) and status', 'histogram', (series) => {
        const name = 'http_request_duration_seconds';
        let cumulative = 0;
        const values = DURATION_BUCKETS.map((le, index) => {
          cumulative += series.buckets[index];
          return { labels: { le, ...series.labels }, value: cumulative, metricName: `${name}_bucket` };
        });
        return [
          ...values,
          { labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: `${name}_bucket` },
          { labels: series.labels, value: series.sum, metricName: `${name}_sum` },
          { labels: series.labels, value: series.count, metricName: `${name}_count` },
        ];
      }),
    );
  }

  private metric(name: string, help: string, type: MetricType, values: (series: Series) => { labels: object; value: number; metricName?: string }[]): Metric {
    const scraped: ScrapedMetric = {
      name,
      help,
      type,
      aggregator: 'sum',
      // The name as the registry holds it now (an OpenMetrics registry renames counters).
      get: async () => ({ name: scraped.name, help, type, aggregator: 'sum', values: [...this.series.values()].flatMap(values) }),
      reset: () => this.series.clear(),
    };
    // The registry only calls get() and reset() (and reads the fields above) on what it holds.
    return scraped as unknown as Metric;
  }
}

export const requestMetrics = new RequestMetrics();
requestMetrics.register(registry);

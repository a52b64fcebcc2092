import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Prometheus metrics, served at GET /metrics. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LABEL_NAMES = ['method', 'route', 'status'] as const;

/**
 * Request count and latency by method, route (the operation) and status
 * (`http_requests_total`, `http_request_duration_seconds`), kept in
 * prom-client's own Counter and Histogram. A reply cut after its head was
 * sent is recorded with the status `aborted`.
 */
export class RequestMetrics {
  private readonly requests: Counter<(typeof LABEL_NAMES)[number]>;
  private readonly duration: Histogram<(typeof LABEL_NAMES)[number]>;

  constructor(into: Registry) {
    this.requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route (operation) and status', labelNames: LABEL_NAMES, registers: [into] });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route (operation) and status',
      labelNames: LABEL_NAMES,
      buckets: DURATION_BUCKETS,
      registers: [into],
    });
  }

  record(method: string, route: string, status: number | 'aborted', seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }
}

export const requestMetrics = new RequestMetrics(registry);

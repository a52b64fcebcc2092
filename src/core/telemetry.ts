import type * as OtelApi from '@opentelemetry/api';
import { config } from '../config/config';
import { logger } from '../config/logger';

/**
 * The service's own traces. With OTEL_EXPORTER_OTLP_ENDPOINT set, the
 * official OpenTelemetry Node SDK (sdk-trace-node, with its AsyncLocalStorage
 * context) exports, over OTLP/HTTP protobuf, a span per HTTP request (a
 * child of the caller's W3C `traceparent` when it sent one), per GraphQL
 * operation and per SQL statement. Unset, none of those packages is loaded
 * and every hook below is one null check.
 *
 * Whatever the setting, a valid incoming `traceparent` names the request's
 * trace id in its log line.
 */

type Api = typeof OtelApi;

let api: Api | null = null;
let tracer: OtelApi.Tracer | null = null;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The trace id of a W3C `traceparent` header, or null when it is absent or malformed. */
export function traceIdOf(traceparent: string | null | undefined): string | null {
  const match = traceparent ? TRACEPARENT.exec(traceparent.trim()) : null;
  return match && !/^0+$/.test(match[1]) ? match[1] : null;
}

/** Starts exporting when OTEL_EXPORTER_OTLP_ENDPOINT is set; returns the function that flushes and stops it (null when off). */
export function startTelemetry(): (() => Promise<void>) | null {
  const endpoint = config().OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || tracer) return null;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const otel = require('@opentelemetry/api') as Api;
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const url = `${endpoint.replace(/\/+$/, '')}/v1/traces`;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config().OTEL_SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  api = otel;
  tracer = otel.trace.getTracer('agent-platform-api');
  traceStatements();
  logger.info({ url }, 'exporting the service\'s spans over OTLP');
  return async () => {
    await provider.forceFlush().catch(() => undefined);
    await provider.shutdown().catch(() => undefined);
    api = null;
    tracer = null;
  };
}

/** A span the caller ends; `end` records an error when given one. */
export interface ActiveSpan {
  traceId: string;
  end(error?: unknown, attributes?: Record<string, string | number>, name?: string): void;
}

/**
 * Runs `work` (the whole handling of one HTTP request) in a server span that
 * continues the request's `traceparent`; the span is ended by the caller
 * once the reply is written. Without tracing, `work` runs as it is.
 */
export function inRequestSpan<T>(headers: Record<string, string | string[] | undefined>, name: string, work: (span: ActiveSpan | null) => T): T {
  if (!api || !tracer) return work(null);
  const parent = api.propagation.extract(api.context.active(), headers);
  const span = tracer.startSpan(name, { kind: api.SpanKind.SERVER }, parent);
  return api.context.with(api.trace.setSpan(parent, span), () => work(wrap(span)));
}

/** Runs `work` in a child span of the current one (a GraphQL operation, a SQL statement). */
export function inSpan<T>(name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  if (!api || !tracer) return work();
  const span = tracer.startSpan(name, { attributes, kind: api.SpanKind.INTERNAL });
  const active = wrap(span);
  return api.context.with(api.trace.setSpan(api.context.active(), span), work).then(
    (value) => {
      active.end();
      return value;
    },
    (error: unknown) => {
      active.end(error);
      throw error;
    },
  );
}

/** A span started now and ended by the caller (a GraphQL operation from its resolution to its reply). */
export function startSpan(name: string, attributes: Record<string, string | number>): ActiveSpan | null {
  if (!api || !tracer) return null;
  return wrap(tracer.startSpan(name, { attributes }));
}

function wrap(span: OtelApi.Span): ActiveSpan {
  const otel = api!;
  return {
    traceId: span.spanContext().traceId,
    end(error, attributes, name) {
      if (name) span.updateName(name);
      if (attributes) span.setAttributes(attributes);
      if (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
    },
  };
}

/**
 * A span per SQL statement: node-postgres's Client#query (which Sequelize
 * and src/db/hot.ts both call) wrapped once tracing starts, whichever way the
 * statement is sent (callback, promise, or a submitted Query streaming rows).
 */
let statementsTraced = false;
function traceStatements(): void {
  if (statementsTraced) return;
  statementsTraced = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver both query paths share
  const { Client } = require('pg') as typeof import('pg');
  const original = Client.prototype.query as (...args: unknown[]) => unknown;
  (Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    if (!api || !tracer || !text) return original.apply(this, args);
    const span = wrap(
      tracer.startSpan('sql', { kind: api.SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', 'db.statement': statementSummary(text) } }, api.context.active()),
    );
    const callbackAt = args.findIndex((arg) => typeof arg === 'function');
    if (callbackAt >= 0) {
      const callback = args[callbackAt] as (...results: unknown[]) => unknown;
      args[callbackAt] = function settled(this: unknown, error: unknown, ...rest: unknown[]) {
        span.end(error ?? undefined);
        return callback.call(this, error, ...rest);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as { then?: unknown; on?: unknown } | undefined;
    if (result && typeof result.then === 'function') {
      (result as Promise<unknown>).then(
        () => span.end(),
        (error: unknown) => span.end(error),
      );
    } else if (result && typeof result.on === 'function') {
      const events = result as { on(event: string, listener: (error?: unknown) => void): void };
      events.on('end', () => span.end());
      events.on('error', (error) => span.end(error));
    }
    return result;
  };
}

/**
 * The statement's text as a span attribute: its first line's worth,
 * whitespace folded, and each string literal as `'?'` (OpenTelemetry's
 * database conventions: Sequelize's model statements inline their values,
 * an e-mail address or a name among them, which a trace backend must not
 * keep).
 */
export function statementSummary(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, "'?'").replace(/\s+/g, ' ').trim().slice(0, 500);
}

export const tracingOn = (): boolean => tracer !== null;

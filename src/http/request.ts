import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { config } from '../config/config';
import type { AppContext, RestRequest } from '../core/context';
import type { ScopeHint } from '../core/tenancy/scope';
import { InvalidError } from '../core/errors';
import { logger } from '../config/logger';
import { requestMetrics } from '../core/metrics';
import { enforceRequestQuota } from '../core/rate-limit';
import { createContext } from '../context/context';
import type { ActiveSpan } from '../core/telemetry';

/** What the HTTP layer tracks for one request, for its log line and metrics. */
export interface RequestState {
  requestId: string;
  started: bigint;
  /** A bounded label: an ops route, `graphql`, or the REST operation. */
  route: string;
  ctx: AppContext | null;
  /** Headers every reply of the request carries (X-Request-Id, X-RateLimit-*), written with the reply. */
  headers: Record<string, string>;
  /** The W3C trace the request belongs to (its traceparent's, or the server span's when tracing is on). */
  traceId: string | null;
  /** The request's server span while tracing is on (core/telemetry.ts), ended once the reply is written. */
  span: ActiveSpan | null;
  /** The path the log line shows when it is not the request's own: a route's secret parameters redacted (RestRoute.secretParams). */
  loggedPath?: string;
}

export function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  if (Array.isArray(value)) return value.join(', ');
  // Node keeps the first Authorization of several; a proxy may act on the last. Joined, they are no credential (401).
  if (value !== undefined && name === 'authorization') {
    const all = req.headersDistinct.authorization;
    if (all && all.length > 1) return all.join(', ');
  }
  return value ?? null;
}

/** The method a route answers the request with: HEAD is GET without the body (Node writes none). */
export function routeMethod(req: IncomingMessage): string {
  return req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
}

/**
 * The request target's path as sent, without its query: an absolute-form
 * target (`GET http://host/path`, which requestUrl routes by its path)
 * without its scheme and authority. What the log line shows.
 */
export function targetPath(req: IncomingMessage): string {
  const path = (req.url ?? '/').split('?', 1)[0];
  return path.startsWith('/') ? path : path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/';
}

/**
 * The request's target as a URL, parsed once per request: its path and
 * query whatever they spell (a target beginning `//a:99999/` is a path
 * here, not a host and port that fail to parse); 400 for a target that is
 * no URL at all.
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? '/';
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target, 'http://localhost');
  } catch {
    throw new InvalidError('The request target is not a valid URL path');
  }
}

/**
 * The socket address; behind a trusted proxy (TRUST_PROXY), the address that
 * proxy saw: the last X-Forwarded-For hop, the one it added (whether it
 * overwrites the header or appends to what the client sent, the hops before
 * it are the client's to write), when it is an IP address.
 */
export function clientIp(req: IncomingMessage): string {
  const forwarded = config().TRUST_PROXY ? headerValue(req, 'x-forwarded-for')?.split(',').pop()?.trim() : undefined;
  return (forwarded && isIP(forwarded) ? forwarded : null) ?? req.socket.remoteAddress ?? '';
}

/** The request's context, once its caller is known and within its quota (X-RateLimit-* headers set). */
export async function contextFor(
  req: IncomingMessage,
  state: RequestState,
  rest: RestRequest | null,
  scopeHint: ScopeHint | null = null,
): Promise<AppContext> {
  const headers = { get: (name: string) => headerValue(req, name) };
  state.ctx = await createContext({ headers, ip: clientIp(req), requestId: state.requestId, rest, scopeHint });
  // A reply made for a credential is the caller's alone: no cache keeps it.
  if (state.ctx.viewer) state.headers['Cache-Control'] = 'no-store';
  Object.assign(state.headers, await enforceRequestQuota(state.ctx));
  return state.ctx;
}

/** Metrics and the request's log line; org and workspace come from the scope the request resolved. */
export function observe(req: IncomingMessage, res: ServerResponse, state: RequestState): void {
  const seconds = Number(process.hrtime.bigint() - state.started) / 1e9;
  // A reply cut after its head was sent (abortReply), or whose client had gone, is counted and logged as aborted, not by the status it began with.
  const aborted = !res.writableEnded || res.destroyed;
  requestMetrics.record(req.method ?? 'GET', state.route, aborted ? 'aborted' : res.statusCode, seconds);
  state.span?.end(res.statusCode >= 500 ? `HTTP ${res.statusCode}` : undefined, { 'http.route': state.route, 'http.response.status_code': res.statusCode }, `${req.method} ${state.route}`);
  if (!logger.isLevelEnabled('info')) return;
  const tenant = state.ctx?.tenant;
  logger.info(
    {
      request_id: state.requestId,
      trace_id: state.traceId ?? undefined,
      method: req.method,
      path: state.loggedPath ?? targetPath(req),
      route: state.route,
      operation: state.ctx?.operation ?? undefined,
      status: res.statusCode,
      aborted: aborted || undefined,
      duration_ms: Math.round(seconds * 1000 * 100) / 100,
      org: tenant?.org.key,
      workspace: tenant?.workspace?.key,
      user_id: state.ctx?.viewer?.user.id,
    },
    'request',
  );
}

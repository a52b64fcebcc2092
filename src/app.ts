import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import semver from 'semver';
import { config } from './config/config';
import { newRequestId } from './core/context';
import { ForbiddenError, InvalidError, MethodNotAllowedError, NotFoundError, reportError, UpgradeRequiredError } from './core/errors';
import { logger } from './config/logger';
import { requestMetrics } from './core/metrics';
import { createEngine } from './core/graphql-sql/engine';
import { createGraphQLTransport, GRAPHQL_METHODS } from './http/graphql-transport';
import { opsRoutes } from './http/ops-routes';
import { withRestLocs } from './http/read-variables';
import { clientIp, contextFor, headerValue, observe, requestUrl, routeMethod, targetPath, type RequestState } from './http/request';
import { abortReply, attachReplyHooks, endReply, sendBody, sendError, sendStream, writeHead } from './http/respond';
import { applyCors, crossSiteWrite } from './http/cors';
import { allowedMethods, RouteTable } from './http/route-table';
import { createRestTransport } from './http/rest-transport';
import { REST_BASE } from './http/rest-routes';
import { createSchema } from './schema';
import type { BodyRoute } from './core/module';
import { platform } from './modules';
import { deferContinue, readEncodedBody } from './http/body';
import { inRequestSpan, traceIdOf, type ActiveSpan } from './core/telemetry';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface App {
  handler: Handler;
  schema: GraphQLSchema;
  openApi: () => object;
  stop: () => Promise<void>;
}

/** A request path (before `?` or `#`, tabs and newlines dropped) with a dot segment (`.`, `..`, either spelled with %2e) or a backslash: what URL parsing rewrites. */
const REWRITTEN_PATH = /\\|(^|\/)(\.|%2e){1,2}(\/|$)/i;

/** Builds the one HTTP handler: ops routes, then GraphQL (Apollo) or REST (Sofa). */
export async function createApp(): Promise<App> {
  const schema = await createSchema();
  const engine = createEngine(schema);
  const graphql = await createGraphQLTransport(schema, engine);
  const rest = createRestTransport(schema, engine);
  const opsTable = opsRoutes(rest.openApi);
  // Module routes that read their own bodies (an OTLP export, a page's form, a download), matched before the REST routes.
  const bodyTable = platform.bodyRoutes.reduce((table, route) => table.add(route.method, route.page ? route.path : `${REST_BASE}${route.path}`, route), new RouteTable<BodyRoute>());

  /** The methods a path has (Allow), none for a path nothing serves. */
  function methodsOf(path: string): string[] {
    if (path === '/graphql') return GRAPHQL_METHODS;
    const ops = allowedMethods(opsTable, path);
    if (ops.length) return ops;
    const own = allowedMethods(bodyTable, path);
    if (own.length) return own;
    return path.startsWith(`${REST_BASE}/`) ? rest.methodsOf(path) : [];
  }

  /** GraphQL (Apollo) or REST (Sofa): everything past the ops routes. */
  async function route(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const url = requestUrl(req);
    // Paths are served exactly: one a URL parser rewrites (a `.` or `..` segment, spelled or percent-encoded, a
    // backslash) names nothing, rather than the path it becomes.
    if (REWRITTEN_PATH.test((req.url ?? '/').split(/[?#]/, 1)[0].replace(/[\t\n\r]/g, ''))) throw new NotFoundError('Route');
    if (req.method === 'OPTIONS') return answerOptions(res, methodsOf(url.pathname));
    // Labelled before any check, so that every refusal of a GraphQL request is GraphQL's reply (fail()).
    if (url.pathname === '/graphql') state.route = 'graphql';
    checkClientVersion(headerValue(req, 'x-client-version'));
    if (state.route === 'graphql') return graphql.handle(req, res, url, state);
    // A path the ops routes serve, asked with another method; or spelled otherwise than they match it
    // (`/api/v1/./health`: ops routes match the target as sent), which, like every path, is served only exactly.
    const method = routeMethod(req);
    const ops = allowedMethods(opsTable, url.pathname);
    if (ops.length) throw ops.includes(method) ? new NotFoundError('Route') : new MethodNotAllowedError(ops);
    const own = bodyTable.match(method, url.pathname);
    if (own) {
      state.route = own.route.label;
      return own.route.handle({
        req,
        url,
        ip: clientIp(req),
        params: own.params,
        context: (hint) => contextFor(req, state, null, hint),
        body: (limit, inflatedLimit) => readEncodedBody(req, limit, inflatedLimit),
        reply: (status, body, contentType, headers) => sendBody(res, status, body, contentType, headers ?? null),
        replyStream: (status, contentType, headers, source) => sendStream(res, status, contentType, headers, source),
      }).catch((error: unknown) => {
        // Validation locations as on every REST route (`["path", "version"]`).
        throw withRestLocs(error, Object.keys(own.params));
      });
    }
    const ownMethods = allowedMethods(bodyTable, url.pathname);
    if (ownMethods.length) throw new MethodNotAllowedError(ownMethods);
    if (url.pathname.startsWith(`${REST_BASE}/`)) return rest.handle(req, res, url, state);
    throw new NotFoundError('Route');
  }

  function fail(res: ServerResponse, state: RequestState, error: unknown): void {
    const transport = state.route === 'graphql' ? 'graphql' : 'rest';
    const appError = reportError(logger, error, { request_id: state.requestId }, transport);
    // A reply already complete stays as it is; one cut short mid-body ends the connection.
    if (res.writableEnded) return;
    if (res.headersSent) return abortReply(res);
    sendError(res, appError, transport);
  }

  // With tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), each request runs in a server span continuing its traceparent.
  const handler: Handler = (req, res) => inRequestSpan(req.headers, `${req.method ?? 'GET'} request`, (span) => handle(req, res, span));

  const handle = (req: IncomingMessage, res: ServerResponse, span: ActiveSpan | null): void => {
    const requestId = newRequestId(headerValue(req, 'x-request-id'));
    // Vary: Origin on every reply, so a shared cache never serves one origin's CORS headers (or none) to another.
    const headers: Record<string, string> = { 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff', Vary: 'Origin' };
    const traceId = span?.traceId ?? traceIdOf(headerValue(req, 'traceparent'));
    const state: RequestState = { requestId, started: process.hrtime.bigint(), route: 'unmatched', ctx: null, headers, traceId, span };
    // A path holding a secret (a device code) is logged redacted whatever becomes of the request.
    const loggedPath = rest.loggedPath(targetPath(req));
    if (loggedPath !== null) state.loggedPath = loggedPath;
    // Metrics and the log line once the reply is written (src/http/respond.ts writes every reply).
    attachReplyHooks(res, {
      headers,
      written: () => {
        answered.add(req);
        observe(req, res, state);
      },
    });
    // HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal would carry no envelope (requireHostHeader is off).
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      return sendError(res, new InvalidError('An HTTP/1.1 request must carry a Host header'));
    }
    if (req.headers.origin !== undefined) {
      const cors = applyCors(req, headers);
      if (cors === 'preflight') return answerPreflight(res);
      if (cors === 'refused-preflight' || (cors === 'refused' && crossSiteWrite(req))) return sendError(res, new ForbiddenError(`Origin ${req.headers.origin} may not call this API`));
    }
    // Ops routes match the path (no query string, no URL object; an absolute-form target's path) and are
    // called directly: no promise for the health route's synchronous reply.
    const op = opsTable.match(routeMethod(req), targetPath(req));
    if (!op) return void route(req, res, state).catch((error: unknown) => fail(res, state, error));
    state.route = op.route.label;
    try {
      const replied = op.route.handle(req, res, op.params);
      if (replied) replied.catch((error: unknown) => fail(res, state, error));
    } catch (error) {
      fail(res, state, error);
    }
  };

  return { handler, schema, openApi: rest.openApi, stop: () => graphql.stop() };
}

/** An allowed preflight: its CORS headers (already among the request's headers), no body. */
function answerPreflight(res: ServerResponse): void {
  writeHead(res, 204, {});
  endReply(res);
}

/** OPTIONS without a preflight: the path's methods, or 404 for a path nothing serves. */
function answerOptions(res: ServerResponse, methods: string[]): void {
  if (!methods.length) throw new NotFoundError('Route');
  writeHead(res, 204, { Allow: methods.join(', ') });
  endReply(res);
}

/** 426 for clients older than MIN_CLIENT_VERSION (X-Client-Version). */
function checkClientVersion(clientVersion: string | null): void {
  const minVersion = config().MIN_CLIENT_VERSION;
  if (minVersion && clientVersion && semver.valid(clientVersion) && semver.lt(clientVersion, minVersion)) {
    throw new UpgradeRequiredError(`Client version ${clientVersion} is no longer supported; upgrade to ${minVersion} or later`);
  }
}

/**
 * Requests answered already: one answered before its body was read (401, 404, …) keeps its connection while Node
 * reads the rest of the body, and a body that stops arriving must not get a second reply (408) on it.
 */
const answered = new WeakSet<IncomingMessage>();

/** How long a request's head may take to arrive (Node's default is 60 s). */
const HEADERS_TIMEOUT_MS = 30_000;

/** Long repeated query strings (1000 UUIDs is ~48 KB) need more than Node's 16 KiB default. */
export const MAX_HEADER_BYTES = 256 * 1024;

/**
 * The node:http server for an app. Requests Node rejects before the handler
 * runs (oversized or malformed headers) still get the spec's envelope.
 */
export function createHttpServer(app: App): http.Server {
  const requestTimeout = config().REQUEST_TIMEOUT_MS;
  // Node refuses a head timeout longer than the request's.
  const headersTimeout = requestTimeout ? Math.min(HEADERS_TIMEOUT_MS, requestTimeout) : HEADERS_TIMEOUT_MS;
  const server = http.createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requireHostHeader: false,
      requestTimeout,
      headersTimeout,
      // Node checks the timeouts on this interval (30 s by default, which would let a request overrun by as much).
      connectionsCheckingInterval: Math.max(100, Math.min(5000, Math.floor((requestTimeout || HEADERS_TIMEOUT_MS) / 4))),
    },
    app.handler,
  );
  // `Expect: 100-continue`: the body is asked for only when it is read (body.ts).
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    deferContinue(req, res);
    app.handler(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A reply begun or written already (to a request answered before its body arrived) cannot be followed by another:
    // the connection ends. Node's parser holds the request whose head or body is still arriving (null before its head).
    const pending = (socket as { parser?: { incoming?: IncomingMessage | null } }).parser?.incoming;
    const replying = (socket as { _httpMessage?: http.ServerResponse })._httpMessage?.headersSent;
    if (!socket.writable || replying || (pending && answered.has(pending))) return socket.destroy();
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timedOut ? 408 : 400;
    // The request's head may not have been parsed, so none of its headers (nor a client's X-Request-Id) is trusted: the id is always made here.
    const requestId = newRequestId(null);
    // Which limit fired: the head's (no request parsed yet) or the whole request's.
    const detail = timedOut
      ? pending
        ? `The request did not arrive within ${requestTimeout} ms (REQUEST_TIMEOUT_MS)`
        : `The request's head did not arrive within ${headersTimeout} ms`
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? `Request headers exceed ${MAX_HEADER_BYTES} bytes`
        : 'Malformed HTTP request';
    const body = JSON.stringify({ code: status, detail, errors: null, type: 'invalid_error' });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
    requestMetrics.record('UNKNOWN', timedOut ? 'timed out' : 'malformed', status, 0);
    logger.warn({ request_id: requestId, status, code: error.code, detail }, timedOut ? 'request timed out' : 'malformed request');
  });
  return server;
}

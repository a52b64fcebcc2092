import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { ApolloServer, HeaderMap, type BaseContext } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import semver from 'semver';
import { config } from './config/config';
import { createContext, newRequestId, type AppContext, type RestRequest } from './context/context';
import { NotFoundError, toAppError, toEnvelope, UpgradeRequiredError, ValidationError } from './core/errors';
import { formatGraphQLError } from './core/errors/graphql-errors';
import { checkOperationAuthentication, checkOperationVariables } from './core/graphql-request-checks';
import { DEFAULT_BODY_LIMIT, readBody } from './core/http/body';
import { enforceRequestQuota } from './core/http/rate-limit';
import { graphiqlPage, readAsset, swaggerPage } from './core/http/static-assets';
import { logger } from './core/logger';
import { httpDuration, httpRequests, registry } from './core/metrics';
import { buildOpenApiDocument } from './core/rest/openapi';
import { database } from './db/database';
import { createRestRouter, REST_BASE, restOperations, type RestOperation } from './rest';
import { createSchema } from './schema';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface App {
  handler: Handler;
  schema: GraphQLSchema;
  openApi: () => object;
  stop: () => Promise<void>;
}

interface RequestState {
  requestId: string;
  started: bigint;
  route: string;
  ctx: AppContext | null;
}

/** Builds the one HTTP handler: REST (Sofa), GraphQL (Apollo), docs, health, metrics. */
export async function createApp(): Promise<App> {
  const schema = await createSchema();
  const router = createRestRouter(schema);
  const operations = restOperations(schema);
  let openApi: object | undefined;
  const getOpenApi = () => (openApi ??= buildOpenApiDocument(schema, router.openAPIDocument as never, operations));

  const apollo = new ApolloServer<AppContext & BaseContext>({
    schema,
    csrfPrevention: true,
    introspection: true,
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      {
        async requestDidStart({ contextValue }) {
          return {
            async didResolveOperation({ operationName, operation, request }) {
              // Logged per request; metrics keep the bounded route label `graphql`.
              contextValue.operation = `graphql:${operationName ?? operation?.operation ?? 'anonymous'}`;
              if (!operation) return;
              checkOperationAuthentication(schema, operation, contextValue);
              checkOperationVariables(schema, operation, request.variables);
            },
            async didEncounterErrors({ errors }) {
              for (const error of errors) {
                const { unexpected } = toAppError(error);
                if (unexpected) contextValue.logger.error({ err: unexpected }, 'unexpected error in GraphQL operation');
              }
            },
          };
        },
      },
    ],
  });
  await apollo.start();

  async function handle(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;

    if (path === `${REST_BASE}/health` && method === 'GET') {
      state.route = 'health';
      return sendJson(res, 200, { status: 'ok' });
    }
    if (path === `${REST_BASE}/health/ready` && method === 'GET') {
      state.route = 'health_ready';
      try {
        await database().query('SELECT 1');
        return sendJson(res, 200, { status: 'ok', database: 'ok' });
      } catch {
        return sendJson(res, 503, { status: 'unavailable', database: 'unreachable' });
      }
    }
    if (path === '/metrics' && method === 'GET') {
      state.route = 'metrics';
      res.writeHead(200, { 'Content-Type': registry.contentType });
      res.end(await registry.metrics());
      return;
    }
    if (path === `${REST_BASE}/openapi.json` && method === 'GET') {
      state.route = 'openapi';
      return sendJson(res, 200, getOpenApi());
    }
    if ((path === '/api/docs' || path === '/api/docs/') && method === 'GET') {
      state.route = 'docs';
      return sendHtml(res, swaggerPage());
    }
    if (path.startsWith('/api/docs/assets/') && method === 'GET') {
      state.route = 'assets';
      return sendAsset(res, `swagger/${path.slice(17)}`);
    }
    if (path.startsWith('/graphql/assets/') && method === 'GET') {
      state.route = 'assets';
      return sendAsset(res, `graphiql/${path.slice(16)}`);
    }

    const minVersion = config().MIN_CLIENT_VERSION;
    const clientVersion = req.headers['x-client-version'];
    if (minVersion && typeof clientVersion === 'string' && semver.valid(clientVersion) && semver.lt(clientVersion, minVersion)) {
      throw new UpgradeRequiredError(`Client version ${clientVersion} is no longer supported; upgrade to ${minVersion} or later`);
    }

    if (path === '/graphql') {
      state.route = 'graphql';
      if (method === 'GET' && (req.headers.accept ?? '').includes('text/html')) return sendHtml(res, graphiqlPage());
      return handleGraphQL(req, res, url, state);
    }
    if (path.startsWith(`${REST_BASE}/`)) return handleRest(req, res, url, method, state);
    throw new NotFoundError('Route');
  }

  async function handleGraphQL(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const raw = await readBody(req, DEFAULT_BODY_LIMIT);
    let body: unknown;
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ValidationError([{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }], 'Request body is not valid JSON');
      }
    }
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const ctx = await contextFor(req, res, state, null);
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method ?? 'GET', headers, search: url.search, body },
      context: async () => ctx,
    });
    for (const [name, value] of response.headers) res.setHeader(name, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.end(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  }

  async function handleRest(req: IncomingMessage, res: ServerResponse, url: URL, method: string, state: RequestState): Promise<void> {
    const relative = url.pathname.slice(REST_BASE.length);
    const limit = bodyLimitFor(operations, method, relative);
    let body: unknown;
    let bodyError: RestRequest['bodyError'] = null;
    if (method !== 'GET' && method !== 'HEAD') {
      const raw = await readBody(req, limit);
      if (raw.length) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch (error) {
          bodyError = { loc: ['body', jsonErrorPosition(error)], msg: 'JSON decode error', type: 'json_invalid' };
        }
      }
    }
    const rest: RestRequest = { method, path: url.pathname, query: url.searchParams, body, bodyError };
    const ctx = await contextFor(req, res, state, rest);
    const headers = new Headers();
    for (const name of ['authorization', 'x-api-key', 'x-request-id', 'user-agent']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    // Sofa sees the path only; readRestVariables reads query and body strictly.
    const request = new Request(`http://localhost${url.pathname}`, { method, headers });
    const response: Response = await router.fetch(request, { appContext: ctx });
    if (!ctx.operation) throw new NotFoundError('Route');
    state.route = ctx.operation;
    const status = response.status < 300 && ctx.response.status ? ctx.response.status : response.status;
    const text = await response.text();
    res.writeHead(status, {
      ...Object.fromEntries(response.headers.entries()),
      ...ctx.response.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** The request's context, once its caller is known and within its quota. */
  async function contextFor(req: IncomingMessage, res: ServerResponse, state: RequestState, rest: RestRequest | null): Promise<AppContext> {
    const headers = { get: (name: string) => headerValue(req, name) };
    state.ctx = await createContext({ headers, ip: clientIp(req), requestId: state.requestId, rest });
    for (const [name, value] of Object.entries(await enforceRequestQuota(state.ctx))) res.setHeader(name, value);
    return state.ctx;
  }

  const handler: Handler = (req, res) => {
    const state: RequestState = {
      requestId: newRequestId(headerValue(req, 'x-request-id')),
      started: process.hrtime.bigint(),
      route: 'unmatched',
      ctx: null,
    };
    res.setHeader('X-Request-Id', state.requestId);
    res.on('finish', () => observe(req, res, state));
    handle(req, res, state).catch((error: unknown) => {
      const { appError, unexpected } = toAppError(error);
      if (unexpected) logger.error({ err: unexpected, request_id: state.requestId }, 'unexpected error');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, appError.status, toEnvelope(appError), appError.headers);
    });
  };

  return {
    handler,
    schema,
    openApi: getOpenApi,
    stop: () => apollo.stop(),
  };
}

/** Long repeated query strings (1000 UUIDs is ~48 KB) need more than Node's 16 KiB default. */
export const MAX_HEADER_BYTES = 256 * 1024;

/**
 * The node:http server for an app. Requests Node rejects before the handler
 * runs (oversized or malformed headers) still get the spec's envelope.
 */
export function createHttpServer(app: App): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app.handler);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      code: 400,
      detail: tooLarge ? `Request headers exceed ${MAX_HEADER_BYTES} bytes` : 'Malformed HTTP request',
      errors: null,
      type: 'invalid_error',
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

function bodyLimitFor(operations: RestOperation[], method: string, path: string): number {
  for (const operation of operations) {
    if (operation.route.method === method && operation.route.bodyLimit && routeMatches(operation.route.path, path)) {
      return operation.route.bodyLimit;
    }
  }
  return DEFAULT_BODY_LIMIT;
}

function routeMatches(pattern: string, path: string): boolean {
  const left = pattern.split('/');
  const right = path.split('/');
  return left.length === right.length && left.every((part, index) => part.startsWith(':') || part === right[index]);
}

function jsonErrorPosition(error: unknown): number {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match ? Number(match[1]) : 0;
}

/** The socket address, or the first X-Forwarded-For hop behind a trusted proxy (TRUST_PROXY). */
function clientIp(req: IncomingMessage): string {
  const forwarded = config().TRUST_PROXY ? headerValue(req, 'x-forwarded-for')?.split(',')[0]?.trim() : undefined;
  return forwarded || req.socket.remoteAddress || '';
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  if (Array.isArray(value)) return value.join(', ');
  return value ?? null;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendHtml(res: ServerResponse, html: string): void {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}

function sendAsset(res: ServerResponse, name: string): void {
  const asset = readAsset(name);
  if (!asset) throw new NotFoundError('Asset');
  res.writeHead(200, { 'Content-Type': asset.contentType, 'Content-Length': asset.body.length, 'Cache-Control': 'public, max-age=3600' });
  res.end(asset.body);
}

function observe(req: IncomingMessage, res: ServerResponse, state: RequestState): void {
  const seconds = Number(process.hrtime.bigint() - state.started) / 1e9;
  const labels = { method: req.method ?? 'GET', route: state.route, status: String(res.statusCode) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
  const path = (req.url ?? '/').split('?')[0];
  const scope = /^\/api\/v1\/org\/([^/]+)(?:\/ws\/([^/]+))?/.exec(path);
  logger.info(
    {
      request_id: state.requestId,
      method: req.method,
      path,
      route: state.route,
      operation: state.ctx?.operation ?? undefined,
      status: res.statusCode,
      duration_ms: Math.round(seconds * 1000 * 100) / 100,
      org: scope?.[1],
      workspace: scope?.[2],
      user_id: state.ctx?.viewer?.user.id,
    },
    'request',
  );
}


import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import crypto from 'node:crypto';
import { config } from '../config/config';
import { AuthenticationError, NotFoundError, toAppError } from '../core/errors';
import { registry } from '../core/metrics';
import { NO_STORE_HEADERS } from '../core/no-store';
import { plainQuery } from '../db/hot';
import { headerValue, targetPath } from './request';
import { REST_BASE } from './rest-routes';
import { endReply, sendAsset, sendBody, sendError, sendHtml, sendJson, writeHead } from './respond';
import { RouteTable } from './route-table';
import { DOCS_PAGE, type StaticBody } from './static-assets';

/** An operational route: answered before authentication, quotas and the client-version check. */
export interface OpsRoute {
  /** The bounded metrics label. */
  label: string;
  handle(req: IncomingMessage, res: ServerResponse, params: Record<string, string>): void | Promise<void>;
  /** Whether a production switch serves the route now; when not, it is not there for any method (404, no Allow). */
  served?: () => boolean;
}

function metricsAllowed(req: IncomingMessage, ownPort: boolean): void {
  const { METRICS_TOKEN: token, NODE_ENV } = config();
  if (token) {
    const given = Buffer.from(headerValue(req, 'authorization') ?? '');
    const expected = Buffer.from(`Bearer ${token}`);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw new AuthenticationError('A valid metrics token is required');
  } else if (NODE_ENV === 'production' && !ownPort) {
    throw new NotFoundError('Route');
  }
}

/**
 * Prometheus metrics, as the main port serves them or METRICS_PORT's
 * (`ownPort`). With METRICS_TOKEN, only for `Authorization: Bearer <token>`;
 * without it, public outside production and not served on the main port in
 * production.
 */
export function guardedMetrics(ownPort: boolean): OpsRoute {
  return {
    label: 'metrics',
    served: () => ownPort || Boolean(config().METRICS_TOKEN) || config().NODE_ENV !== 'production',
    async handle(req, res) {
      metricsAllowed(req, ownPort);
      // Made for the token's holder (when one is set), like every reply made for a credential.
      sendBody(res, 200, await registry.metrics(), registry.contentType, NO_STORE_HEADERS);
    },
  };
}

/** METRICS_PORT's server: GET /metrics (METRICS_TOKEN still applies when set), nothing else. */
export function createMetricsServer(): http.Server {
  const metrics = guardedMetrics(true);
  return http.createServer((req, res) => {
    const reply = async () => {
      if (targetPath(req) !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) throw new NotFoundError('Route');
      await metrics.handle(req, res, {});
    };
    reply().catch((error: unknown) => sendError(res, toAppError(error).appError));
  });
}

function noContent(res: ServerResponse): void {
  writeHead(res, 204, { 'Cache-Control': 'public, max-age=86400' });
  endReply(res);
}

/** How long readiness waits for the database's answer: a probe gets its 503 in time rather than hanging with it. */
const READY_DEADLINE_MS = 2000;

/**
 * Whether the database answers a `SELECT 1` within READY_DEADLINE_MS. One
 * statement at a time: probes arriving while one is unanswered wait for the
 * same (so a database that stopped answering holds one pool connection for
 * them, not one per probe).
 */
let probing: Promise<boolean> | null = null;
async function databaseAnswers(): Promise<boolean> {
  probing ??= plainQuery('SELECT 1', {}).then(
    () => true,
    () => false,
  ).finally(() => (probing = null));
  let deadline: NodeJS.Timeout | undefined;
  const answered = await Promise.race([probing, new Promise<false>((resolve) => (deadline = setTimeout(() => resolve(false), READY_DEADLINE_MS)))]);
  clearTimeout(deadline);
  return answered;
}

/** Health, readiness, metrics, the OpenAPI document, the docs page and the browser assets. */
export function opsRoutes(openApi: () => object): RouteTable<OpsRoute> {
  const docsServed = () => config().API_DOCS;
  // The document never changes while the process runs: serialised, tagged and compressed once (about 850 KB; 20 ms a request).
  let document: StaticBody | undefined;
  const openApiBody = () => (document ??= { body: JSON.stringify(openApi()), encoded: new Map() });
  const docs: OpsRoute = { label: 'docs', served: docsServed, handle: (_req, res) => sendHtml(res, DOCS_PAGE) };
  return new RouteTable<OpsRoute>((route) => route.served?.() ?? true)
    .add('GET', `${REST_BASE}/health`, { label: 'health', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) })
    .add('GET', `${REST_BASE}/health/ready`, {
      label: 'health_ready',
      async handle(_req, res) {
        // A database that does not answer within READY_DEADLINE_MS is as unreachable as one that refuses.
        if (await databaseAnswers()) sendJson(res, 200, { status: 'ok', database: 'ok' });
        else sendJson(res, 503, { status: 'unavailable', database: 'unreachable' });
      },
    })
    .add('GET', '/metrics', guardedMetrics(false))
    .add('GET', `${REST_BASE}/openapi.json`, { label: 'openapi', handle: (_req, res) => sendBody(res, 200, openApiBody(), 'application/json; charset=utf-8', null) })
    .add('GET', '/api/docs', docs)
    .add('GET', '/api/docs/', docs)
    // Browsers ask every origin for an icon: none, rather than a 404 in the pages' consoles.
    .add('GET', '/favicon.ico', { label: 'assets', handle: (_req, res) => noContent(res) })
    .add('GET', '/api/docs/assets/*', { label: 'assets', served: docsServed, handle: (_req, res, params) => sendAsset(res, `swagger/${params['*']}`) })
    .add('GET', '/graphql/assets/*', { label: 'assets', served: () => config().GRAPHQL_PLAYGROUND, handle: (_req, res, params) => sendAsset(res, `graphiql/${params['*']}`) });
}

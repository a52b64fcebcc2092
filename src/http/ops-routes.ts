import type { IncomingMessage, ServerResponse } from 'node:http';
import { registry } from '../core/metrics';
import { database } from '../db/database';
import { REST_BASE } from './rest-routes';
import { endReply, sendAsset, sendHtml, sendJson, writeHead } from './respond';
import { RouteTable } from './route-table';
import { swaggerPage } from './static-assets';

/** An operational route: answered before authentication, quotas and the client-version check. */
export interface OpsRoute {
  /** The bounded metrics label. */
  label: string;
  handle(req: IncomingMessage, res: ServerResponse, params: Record<string, string>): void | Promise<void>;
}

/** Health, readiness, metrics, the OpenAPI document, the docs page and the browser assets. */
export function opsRoutes(openApi: () => object): RouteTable<OpsRoute> {
  const docs: OpsRoute = { label: 'docs', handle: (_req, res) => sendHtml(res, swaggerPage()) };
  return new RouteTable<OpsRoute>()
    .add('GET', `${REST_BASE}/health`, { label: 'health', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) })
    .add('GET', `${REST_BASE}/health/ready`, {
      label: 'health_ready',
      async handle(_req, res) {
        try {
          await database().query('SELECT 1');
          sendJson(res, 200, { status: 'ok', database: 'ok' });
        } catch {
          sendJson(res, 503, { status: 'unavailable', database: 'unreachable' });
        }
      },
    })
    .add('GET', '/metrics', {
      label: 'metrics',
      async handle(_req, res) {
        const text = await registry.metrics();
        writeHead(res, 200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text) });
        endReply(res, text);
      },
    })
    .add('GET', `${REST_BASE}/openapi.json`, { label: 'openapi', handle: (_req, res) => sendJson(res, 200, openApi()) })
    .add('GET', '/api/docs', docs)
    .add('GET', '/api/docs/', docs)
    .add('GET', '/api/docs/assets/*', { label: 'assets', handle: (_req, res, params) => sendAsset(res, `swagger/${params['*']}`) })
    .add('GET', '/graphql/assets/*', { label: 'assets', handle: (_req, res, params) => sendAsset(res, `graphiql/${params['*']}`) });
}

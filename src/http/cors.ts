import type { IncomingMessage } from 'node:http';
import cors from 'cors';
import { config } from '../config/config';
import { targetPath } from './request';

/**
 * Cross-origin requests from a browser (a dashboard served elsewhere). The
 * decision is the `cors` package's (the Express project's, the one most
 * Node servers use), given a stand-in response: the headers it sets go out
 * with the reply's one writeHead (http/respond.ts) instead of by setHeader.
 * Allowed origins: CORS_ORIGINS (exact origins), else loopback origins
 * outside production, else none. Credentials are bearer tokens and keys in
 * headers, never cookies, so `Access-Control-Allow-Credentials` is not sent.
 */

/** Request headers a page may send cross-origin. */
export const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'X-API-Key', 'X-Request-Id', 'X-Client-Version', 'Idempotency-Key', 'X-Captcha-Token', 'traceparent', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name'];

/** Reply headers a page may read. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'Retry-After',
  'Link',
  'X-Total-Count',
  'ETag',
  'Idempotent-Replayed',
];

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether a page of `origin` may call the API. */
export function originAllowed(origin: string): boolean {
  const settings = config();
  if (settings.CORS_ORIGINS) return settings.CORS_ORIGINS.includes(origin);
  return settings.NODE_ENV !== 'production' && LOOPBACK_ORIGIN.test(origin);
}

const middleware = cors({
  origin: (origin, callback) => callback(null, origin !== undefined && originAllowed(origin)),
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: CORS_REQUEST_HEADERS,
  exposedHeaders: CORS_EXPOSED_HEADERS,
  maxAge: 600,
  optionsSuccessStatus: 204,
});

export type CorsOutcome = 'not-cors' | 'allowed' | 'refused' | 'preflight' | 'refused-preflight';

/** Body types a page may send to any origin without a preflight (the Fetch standard's CORS-safelisted ones). */
const PREFLIGHT_FREE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/**
 * Whether a request of a refused origin is one a page could send to the REST
 * API without a preflight and that may change something: a POST under
 * `/api/` with no body type or a safelisted one, from a page other than this
 * server's own. Such a request is refused before it runs, as Apollo's CSRF
 * prevention refuses its GraphQL kind: a REST body is read as JSON whatever
 * its type, so any site's visitors could otherwise sign up, log in, ask for
 * password mail or device codes from their own addresses (and spend those
 * addresses' quotas). The server's pages post forms to themselves (the
 * device-login page, which has a CSRF token of its own, outside `/api/`)
 * or call the API (the docs page); a page whose referrer policy hides its
 * origin sends `Origin: null`, so the browser's `Sec-Fetch-Site` says
 * whether it is this origin's.
 */
export function crossSiteWrite(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || !targetPath(req).startsWith('/api/')) return false;
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
  if (type !== '' && !PREFLIGHT_FREE_TYPES.has(type)) return false;
  if (req.headers['sec-fetch-site'] === 'same-origin') return false;
  const origin = req.headers.origin ?? 'null';
  const publicUrl = config().PUBLIC_URL;
  if (publicUrl && new URL(publicUrl).origin === origin) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

export function applyCors(req: IncomingMessage, headers: Record<string, string>): CorsOutcome {
  const origin = req.headers.origin;
  if (origin === undefined) return 'not-cors';
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
  let answered = false;
  const standIn = {
    statusCode: 200,
    getHeader: (name: string) => headers[name],
    setHeader: (name: string, value: string | string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    end: () => {
      answered = true;
    },
  };
  // The package treats every OPTIONS as a preflight: any other request is shown to it as a GET.
  // It runs synchronously, since the origin check above is synchronous.
  middleware({ method: preflight ? 'OPTIONS' : 'GET', headers: req.headers } as IncomingMessage, standIn as never, () => undefined);
  // The package's own preflight reply carries Content-Length: 0; the caller writes its own.
  delete headers['Content-Length'];
  const allowed = headers['Access-Control-Allow-Origin'] !== undefined;
  if (preflight) return allowed && answered ? 'preflight' : 'refused-preflight';
  return allowed ? 'allowed' : 'refused';
}

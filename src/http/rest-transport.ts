import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Engine } from '../core/graphql-sql/engine';
import { requireViewer, type RestRequest } from '../core/context';
import { resolveOrg, resolveWorkspace } from '../core/tenancy/tenant-scope';
import { MethodNotAllowedError, NotFoundError, reportError, toEnvelope, type AppError } from '../core/errors';
import { buildOpenApiDocument } from './openapi';
import { platform } from '../modules';
import type { RestRoute } from '../core/graphql-decorators';
import { createRestRouter, REST_BASE, restOperations, type RestOperation } from './rest-routes';
import { DEFAULT_BODY_LIMIT, readJsonBody } from './body';
import { claimKey, fingerprintOf, settleKey, type KeptReply } from './idempotency';
import { contextFor, headerValue, routeMethod, type RequestState } from './request';
import { oversizedReply, sendError, sendJsonArray, sendText } from './respond';
import { allowedMethods, RouteTable } from './route-table';

export interface RestTransport {
  handle(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void>;
  /** The methods of a path under /api/v1 (Allow), none when no route has it. */
  methodsOf(path: string): string[];
  /** The path as the log shows it when a route with secret parameters has it, whatever the method (a 405, an OPTIONS, a preflight); else null. */
  loggedPath(path: string): string | null;
  /** The OpenAPI document, built once on first use. */
  openApi(): object;
}

/**
 * /api/v1: the route table finds the operation (its body limit; unknown
 * routes are 404 before anything else), the caller is authenticated (a
 * route that needs a credential answers 401 before its body is read), the
 * body is read once, and the operation runs with Sofa's document for the
 * route and the same context factory as GraphQL.
 */
export function createRestTransport(schema: GraphQLSchema, engine: Engine): RestTransport {
  const router = createRestRouter(schema, engine);
  const operations = restOperations(schema);
  const routes = new RouteTable<RestOperation>();
  for (const operation of operations) routes.add(operation.route.method, operation.route.path, operation);
  // The routes whose path holds a secret, under one method name: matched for every request, whatever its method.
  const secretPaths = new RouteTable<RestRoute>();
  for (const { route } of operations) if (route.secretParams) secretPaths.add('ANY', route.path, route);
  const nearSecret = nearSecretPaths(
    operations.flatMap(({ route }) => (route.secretParams ? [route] : [])),
    (path) => allowedMethods(routes, path.slice(REST_BASE.length)).length > 0,
  );
  let document: object | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const method = routeMethod(req);
    const match = routes.match(method, url.pathname.slice(REST_BASE.length));
    if (!match) {
      const allowed = allowedMethods(routes, url.pathname.slice(REST_BASE.length));
      throw allowed.length ? new MethodNotAllowedError(allowed) : new NotFoundError('Route');
    }
    const rest: RestRequest = { method, path: url.pathname, query: url.searchParams, body: undefined, bodyError: null };
    state.route = `${match.route.kind}.${match.route.field.name}`;
    // The route's keys go with the credential: one statement authenticates and resolves the tenant.
    const { org, workspace } = match.params;
    const ctx = await contextFor(req, state, rest, org ? { org, workspace: workspace ?? null } : null);
    // The credential before the body (401 before 422, as on every route): a route that needs one reads
    // nothing, not even a 50 MiB publish, for a caller without it (Node discards the unread body).
    if (!match.route.field.extensions?.public) requireViewer(ctx);
    const body = method === 'GET' ? { value: undefined, error: null, raw: Buffer.alloc(0) } : await readJsonBody(req, match.route.route.bodyLimit ?? DEFAULT_BODY_LIMIT);
    rest.body = body.value;
    rest.bodyError = body.error;
    const plan = router.plans.get(state.route)!;
    const key = method === 'POST' ? headerValue(req, 'idempotency-key') : null;
    const claim = key === null ? null : await claimKey(ctx, key, fingerprintOf(method, url, body.raw));
    if (claim?.kind === 'refused') return sendError(res, claim.error);
    if (claim?.kind === 'replay') {
      // Only to a caller who still reaches the route's tenant: one removed from the organization (or whose workspace
      // is gone) gets the 404 the route would give, not a day of replays.
      if (org) await (workspace ? resolveWorkspace(ctx, org, workspace) : resolveOrg(ctx, org));
      return sendText(res, claim.reply.status, claim.reply.body, { ...claim.reply.headers, 'Idempotent-Replayed': 'true' });
    }
    let kept: KeptReply | null = null;
    try {
      const reply = await router.run(plan, ctx, match.params);
      if ('array' in reply) {
        // A streamed list is a read: a key sent with it is given back rather than kept.
        if (claim) await settleKey(claim, null, false);
        try {
          return await sendJsonArray(res, ctx.response.status ?? reply.status, reply.array, ctx.response.headers);
        } catch (error) {
          // Past the head, only cutting the connection is left (the request handler does it).
          if (res.headersSent) throw error;
          // Before it, the statement's failure is reported as the route's own (a timeout is the 504 envelope).
          return sendError(res, reportError(ctx.logger, error, { operation: ctx.operation }));
        }
      }
      const envelope = (error: AppError): KeptReply => ({ status: error.status, headers: { ...error.headers, ...ctx.response.headers }, body: JSON.stringify(toEnvelope(error)) });
      const tooLarge = 'error' in reply ? null : oversizedReply(reply.text, 'rest');
      if ('error' in reply) kept = envelope(reply.error);
      else kept = tooLarge ? envelope(tooLarge) : { status: ctx.response.status ?? reply.status, headers: ctx.response.headers, body: reply.text };
      // The key is settled before the reply goes out: a retry after it replays it. The request ran either
      // way: a failure to record it is logged (the key frees itself after IN_PROGRESS_STALE_MINUTES).
      if (claim) await settleKey(claim, kept, plan.noStore).catch((error: unknown) => reportError(ctx.logger, error, { operation: ctx.operation }));
      sendText(res, kept.status, kept.body, kept.headers);
    } catch (error) {
      // Anything else failed: the key is given back, so the request can be retried with it.
      if (claim && !kept) await settleKey(claim, null, false);
      throw error;
    }
  }

  return {
    handle,
    methodsOf: (path) => allowedMethods(routes, path.slice(REST_BASE.length)),
    loggedPath(path) {
      const secret = path.startsWith(`${REST_BASE}/`) ? secretPaths.match('ANY', path.slice(REST_BASE.length)) : null;
      return secret ? redactedPath(path, secret.route) : nearSecret(path);
    },
    openApi: () => (document ??= buildOpenApiDocument(schema, router.openAPIDocument as never, operations, [...platform.errorTypes.keys()], platform.bodyRoutes)),
  };
}

/**
 * For a path no route matches that lies under a secret route's parent
 * (`/auth/device/…` for `/auth/device/code/:device_code`): a client's slip
 * with the secret in it (a trailing slash, `//`, a dot segment, an encoded
 * or capital letter, a segment more or fewer), the parent's segments and
 * `[redacted]` for the rest; else null. Cheap for every other path: one
 * test of the parent's last segment, on the path decoded only when it holds
 * a `%`; `isRoute` (a path some route has) is asked only past that.
 */
function nearSecretPaths(routes: RestRoute[], isRoute: (path: string) => boolean): (path: string) => string | null {
  const base = REST_BASE.split('/').filter(Boolean);
  const parents = routes.map((route) => {
    const segments = route.path.split('/').filter(Boolean);
    const fixed = segments.slice(0, segments.findIndex((segment) => segment.startsWith(':'))).map((segment) => segment.toLowerCase());
    return fixed.length > 1 ? fixed.slice(0, -1) : fixed;
  });
  const hint = new RegExp(parents.map((parent) => parent[parent.length - 1].replace(/[^a-z0-9]/g, '\\$&')).join('|'), 'i');
  return (path) => {
    let decoded = path;
    // Encoded twice or three times (`%2563ode`) decodes too; a `%` not followed by two hex digits stays as it is.
    for (let round = 0; round < 3 && decoded.includes('%'); round += 1) decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (!hint.test(decoded) || isRoute(path)) return null;
    const segments: string[] = [];
    for (const segment of decoded.toLowerCase().split('/')) {
      if (segment === '..') segments.pop();
      else if (segment && segment !== '.') segments.push(segment);
    }
    if (!base.every((segment, index) => segments[index] === segment)) return null;
    const rest = segments.slice(base.length);
    const parent = parents.find((fixed) => rest.length > fixed.length && fixed.every((segment, index) => rest[index] === segment));
    return parent ? `${REST_BASE}/${parent.join('/')}/[redacted]` : null;
  };
}

/** `path` with the values of `route`'s secret parameters (RestRoute.secretParams) as `[redacted]`, segment for segment. */
function redactedPath(path: string, route: RestRoute): string {
  const template = route.path.split('/');
  const secret = (index: number) => template[index]?.startsWith(':') && route.secretParams!.includes(template[index].slice(1));
  return REST_BASE + path.slice(REST_BASE.length).split('/').map((segment, index) => (secret(index) ? '[redacted]' : segment)).join('/');
}

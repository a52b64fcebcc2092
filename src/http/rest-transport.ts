import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Engine } from '../core/graphql-sql/engine';
import type { RestRequest } from '../core/context';
import { NotFoundError, reportError } from '../core/errors';
import { buildOpenApiDocument } from './openapi';
import { platform } from '../modules';
import { createRestRouter, REST_BASE, restOperations, type RestOperation } from './rest-routes';
import { DEFAULT_BODY_LIMIT, readJsonBody } from './body';
import { contextFor, type RequestState } from './request';
import { oversizedReply, sendError, sendJsonArray, sendText } from './respond';
import { RouteTable } from './route-table';

export interface RestTransport {
  handle(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void>;
  /** The OpenAPI document, built once on first use. */
  openApi(): object;
}

/**
 * /api/v1: the route table finds the operation (its body limit; unknown
 * routes are 404 before anything else), the body is read once, and the
 * operation runs with Sofa's document for the route and the same context
 * factory as GraphQL.
 */
export function createRestTransport(schema: GraphQLSchema, engine: Engine): RestTransport {
  const router = createRestRouter(schema, engine);
  const operations = restOperations(schema);
  const routes = new RouteTable<RestOperation>();
  for (const operation of operations) routes.add(operation.route.method, operation.route.path, operation);
  let document: object | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const match = routes.match(method, url.pathname.slice(REST_BASE.length));
    if (!match) throw new NotFoundError('Route');
    const body = method === 'GET' || method === 'HEAD' ? { value: undefined, error: null } : await readJsonBody(req, match.route.route.bodyLimit ?? DEFAULT_BODY_LIMIT);
    const rest: RestRequest = { method, path: url.pathname, query: url.searchParams, body: body.value, bodyError: body.error };
    state.route = `${match.route.kind}.${match.route.field.name}`;
    // The route's keys go with the credential: one statement authenticates and resolves the tenant
    // (keys with a NUL character are left to the request validation, which answers 422).
    const { org, workspace } = match.params;
    const hinted = org && !org.includes('\0') && !workspace?.includes('\0');
    const ctx = await contextFor(req, state, rest, hinted ? { org, workspace: workspace ?? null } : null);
    const plan = router.plans.get(state.route)!;
    const reply = await router.run(plan, ctx, match.params);
    if ('error' in reply) return sendError(res, reply.error, ctx.response.headers);
    if ('array' in reply) {
      try {
        return await sendJsonArray(res, ctx.response.status ?? reply.status, reply.array, ctx.response.headers);
      } catch (error) {
        // Past the head, only cutting the connection is left (the request handler does it).
        if (res.headersSent) throw error;
        // Before it, the statement's failure is reported as the route's own (a timeout is the 504 envelope).
        return sendError(res, reportError(ctx.logger, error, { operation: ctx.operation }));
      }
    }
    const tooLarge = oversizedReply(reply.text, ['query']);
    if (tooLarge) return sendError(res, tooLarge, ctx.response.headers);
    sendText(res, ctx.response.status ?? reply.status, reply.text, ctx.response.headers);
  }

  return {
    handle,
    openApi: () => (document ??= buildOpenApiDocument(schema, router.openAPIDocument as never, operations, [...platform.errorTypes.keys()])),
  };
}

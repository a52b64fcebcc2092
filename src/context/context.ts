import crypto from 'node:crypto';
import type { Logger } from '../core/logger';
import { logger as rootLogger } from '../core/logger';
import { AuthenticationError, type AppError, type ValidationItem } from '../core/errors';
import { authenticate, readCredential } from './auth';
import { createLoaders, type Loaders } from './loaders';
import type { Viewer } from './viewer';

/** What the REST layer knows about a request before Sofa runs it. */
export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** Set when the body was not valid JSON; reported after authentication. */
  bodyError: ValidationItem | null;
}

/** Response tweaks an operation may ask for (e.g. 200 instead of 201 on an upsert). */
export interface ResponseControl {
  status?: number;
  headers: Record<string, string>;
}

/** The one context shared by Apollo (GraphQL) and Sofa (REST). */
export interface AppContext {
  requestId: string;
  headers: { get(name: string): string | null };
  ip: string;
  logger: Logger;
  viewer: Viewer | null;
  authFailure: AppError | null;
  loaders: Loaders;
  response: ResponseControl;
  rest: RestRequest | null;
  /** Operation name for metrics and logs, set once the route is known. */
  operation: string | null;
}

export interface ContextInput {
  headers: { get(name: string): string | null };
  ip: string;
  requestId?: string;
  rest?: RestRequest | null;
}

export function newRequestId(given?: string | null): string {
  return given && /^[\w.:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
}

export async function createContext(input: ContextInput): Promise<AppContext> {
  const requestId = newRequestId(input.requestId ?? input.headers.get('x-request-id'));
  const { viewer, failure } = await authenticate(readCredential(input.headers));
  return {
    requestId,
    headers: input.headers,
    ip: input.ip,
    logger: rootLogger.child({ request_id: requestId }),
    viewer,
    authFailure: failure,
    loaders: createLoaders(viewer),
    response: { headers: {} },
    rest: input.rest ?? null,
    operation: null,
  };
}

/** The viewer, or the 401 the request deserves. */
export function requireViewer(ctx: AppContext): Viewer {
  if (ctx.viewer) return ctx.viewer;
  throw ctx.authFailure ?? new AuthenticationError('Not authenticated');
}

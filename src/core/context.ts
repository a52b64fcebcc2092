import crypto from 'node:crypto';
import type { Logger } from '../config/logger';
import { AuthenticationError, type AppError, type ValidationItem } from './errors';
import type { AccessPolicy } from './authz/scopes';
import type { PrefetchedScope, TenantScope } from './tenancy/scope';
import type { ReplyBudget } from './reply-budget';
import type { Viewer } from './viewer';

/**
 * Every DataLoader of one request. Empty here: each module adds its own
 * loaders to this interface next to its factory (`declare module` in its
 * `<domain>.loaders.ts`), and the context factory builds them from the
 * module registry, so core never names a module.
 */
export interface Loaders {}

/** What the REST layer knows about a request before its operation document is executed. */
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

/** The one context shared by Apollo (GraphQL), Sofa (REST), CLIs and workers. */
export interface AppContext {
  requestId: string;
  headers: { get(name: string): string | null };
  ip: string;
  logger: Logger;
  viewer: Viewer | null;
  authFailure: AppError | null;
  /** Which roles hold which scopes, built from the module registry. */
  policy: AccessPolicy;
  loaders: Loaders;
  response: ResponseControl;
  rest: RestRequest | null;
  /** Operation name for metrics and logs, set once the route is known. */
  operation: string | null;
  /** The organization (and workspace) the request resolved to, for logs. */
  tenant: TenantScope | null;
  /** The route's organization and workspace, read with the credential (REST path keys, GraphQL query variables). */
  prefetched: PrefetchedScope | null;
  /** What the request may still load for its reply (core/reply-budget.ts). */
  replyBudget: ReplyBudget;
}

export function newRequestId(given?: string | null): string {
  return given && /^[\w.:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
}

/** The viewer, or the 401 the request deserves. */
export function requireViewer(ctx: AppContext): Viewer {
  if (ctx.viewer) return ctx.viewer;
  throw ctx.authFailure ?? new AuthenticationError('Not authenticated');
}

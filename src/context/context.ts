import { logger as rootLogger, type Logger } from '../config/logger';
import { newRequestId, type AppContext, type Loaders, type RestRequest } from '../core/context';
import type { Platform } from '../core/module';
import { newReplyBudget } from '../core/reply-budget';
import type { ScopeHint } from '../core/tenancy/scope';
import { platform as registeredPlatform } from '../modules';
import { authenticate, readCredential } from './auth';

export interface ContextInput {
  headers: { get(name: string): string | null };
  ip: string;
  requestId?: string;
  rest?: RestRequest | null;
  /** The route's `{org}` / `{workspace}` (REST) or a query's `org` / `workspace` variables: read with the credential in one statement. */
  scopeHint?: ScopeHint | null;
}

/**
 * A hint PostgreSQL can take as a bind value: keys with a NUL character are
 * not read with the credential (PostgreSQL refuses the character); the
 * tenant check answers them 404, or the request validation 422.
 */
function usableHint(hint: ScopeHint | null | undefined): ScopeHint | null {
  return hint && !hint.org.includes('\0') && !hint.workspace?.includes('\0') ? hint : null;
}

/**
 * The one context factory, for Apollo, Sofa, CLIs and workers alike: the
 * viewer from the modules' authenticators (JWT, API keys), a request id, a
 * child logger and fresh per-request loaders from the module registry.
 */
export async function createContext(input: ContextInput, platform: Platform = registeredPlatform): Promise<AppContext> {
  const requestId = newRequestId(input.requestId ?? input.headers.get('x-request-id'));
  const { viewer, failure, prefetched } = await authenticate(readCredential(input.headers), platform.authenticators, usableHint(input.scopeHint));
  let logger: Logger | undefined;
  let loaders: Loaders | undefined;
  const ctx: AppContext = {
    requestId,
    headers: input.headers,
    ip: input.ip,
    // Made when first used (an error, a warning): a pino child per request costs more than the rest of this object.
    get logger() {
      return (logger ??= rootLogger.child({ request_id: requestId }));
    },
    viewer,
    authFailure: failure,
    policy: platform.policy,
    // Their loads count against this request's reply budget.
    get loaders() {
      return (loaders ??= platform.createLoaders(viewer, ctx));
    },
    response: { headers: {} },
    rest: input.rest ?? null,
    replyBudget: newReplyBudget(),
    operation: null,
    tenant: null,
    prefetched,
  };
  return ctx;
}

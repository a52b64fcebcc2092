import type { Authenticator } from '../core/module';
import { AppError, AuthenticationError } from '../core/errors';
import type { PrefetchedScope, ScopeHint } from '../core/tenancy/scope';
import { assertActive, type Viewer } from '../core/viewer';

/**
 * Resolves the caller from `Authorization: Bearer <jwt or api key>` or
 * `X-API-Key` with the authenticators the modules provide. Never throws: a
 * bad credential is kept as `failure` and raised only when an operation needs
 * a viewer, so public operations still work.
 */
export interface Authentication {
  viewer: Viewer | null;
  failure: AppError | null;
  prefetched: PrefetchedScope | null;
}

export function readCredential(headers: { get(name: string): string | null }): string | null {
  const apiKey = headers.get('x-api-key');
  if (apiKey && apiKey.trim()) return apiKey.trim();
  const authorization = headers.get('authorization');
  if (!authorization) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1].trim() : authorization.trim() || null;
}

export async function authenticate(
  credential: string | null,
  authenticators: readonly Authenticator[],
  hint: ScopeHint | null = null,
): Promise<Authentication> {
  if (!credential) return { viewer: null, failure: null, prefetched: null };
  try {
    const authenticator = authenticators.find((candidate) => candidate.accepts(credential));
    const result = authenticator ? await authenticator.authenticate(credential, hint) : null;
    if (!result) throw new AuthenticationError(`Invalid ${authenticator?.name ?? 'credential'}`, 'token_error');
    assertActive(result.viewer.user);
    return { viewer: result.viewer, failure: null, prefetched: result.prefetched };
  } catch (error) {
    if (error instanceof AppError) return { viewer: null, failure: error, prefetched: null };
    throw error;
  }
}

import type { Authenticator } from '../core/module';
import { AppError, AuthenticationError } from '../core/errors';
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
}

export function readCredential(headers: { get(name: string): string | null }): string | null {
  const apiKey = headers.get('x-api-key');
  if (apiKey && apiKey.trim()) return apiKey.trim();
  const authorization = headers.get('authorization');
  if (!authorization) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1].trim() : authorization.trim() || null;
}

export async function authenticate(credential: string | null, authenticators: readonly Authenticator[]): Promise<Authentication> {
  if (!credential) return { viewer: null, failure: null };
  try {
    const authenticator = authenticators.find((candidate) => candidate.accepts(credential));
    const viewer = authenticator ? await authenticator.authenticate(credential) : null;
    if (!viewer) throw new AuthenticationError(`Invalid ${authenticator?.name ?? 'credential'}`, 'token_error');
    assertActive(viewer.user);
    return { viewer, failure: null };
  } catch (error) {
    if (error instanceof AppError) return { viewer: null, failure: error };
    throw error;
  }
}

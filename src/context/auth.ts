import { UserModel } from '../../models';
import { AppError, AuthenticationError, ForbiddenError } from '../core/errors';
import { looksLikeJwt, verifyAccessToken } from './jwt';
import type { ApiKeyScope, Viewer } from './viewer';

/**
 * Resolves the caller from `Authorization: Bearer <jwt or api key>` or
 * `X-API-Key`. Never throws: a bad credential is kept as `failure` and raised
 * only when an operation needs a viewer, so public operations still work.
 */
export interface Authentication {
  viewer: Viewer | null;
  failure: AppError | null;
}

/** Set by the accounts module: looks an API key up and records its use. */
export type ApiKeyResolver = (key: string) => Promise<{ user: UserModel; scope: ApiKeyScope } | null>;
let apiKeyResolver: ApiKeyResolver | null = null;
export function setApiKeyResolver(resolver: ApiKeyResolver): void {
  apiKeyResolver = resolver;
}

export function readCredential(headers: { get(name: string): string | null }): string | null {
  const apiKey = headers.get('x-api-key');
  if (apiKey && apiKey.trim()) return apiKey.trim();
  const authorization = headers.get('authorization');
  if (!authorization) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1].trim() : authorization.trim() || null;
}

export async function authenticate(credential: string | null): Promise<Authentication> {
  if (!credential) return { viewer: null, failure: null };
  try {
    return { viewer: await resolveViewer(credential), failure: null };
  } catch (error) {
    if (error instanceof AppError) return { viewer: null, failure: error };
    throw error;
  }
}

async function resolveViewer(credential: string): Promise<Viewer> {
  if (looksLikeJwt(credential)) {
    const claims = verifyAccessToken(credential);
    const user = await UserModel.findByPk(claims.sub);
    if (!user || user.token_version !== claims.tv) throw new AuthenticationError('Invalid access token', 'token_error');
    assertActive(user);
    return { user, apiKey: null };
  }
  const resolved = apiKeyResolver ? await apiKeyResolver(credential) : null;
  if (!resolved) throw new AuthenticationError('Invalid API key', 'token_error');
  assertActive(resolved.user);
  return { user: resolved.user, apiKey: resolved.scope };
}

/** Suspended accounts get 403 user_suspended, whatever credential they use. */
export function assertActive(user: UserModel): void {
  if (user.is_suspended) throw new ForbiddenError('This account is suspended', 'user_suspended');
}

import jwt from 'jsonwebtoken';
import { config } from '../../config/config';
import { USER_RECORD_COLUMNS, type UserRecord } from '../../../models';
import { AuthenticationError } from '../../core/errors';
import type { Authenticator } from '../../core/module';
import { isUuid } from '../../core/scalars';
import { jwtSecret } from '../../core/secrets';
import { prefetchedScope, scopeJoinSql } from '../../core/tenancy/tenant-scope';
import { nestRow, plainQuery, present } from '../../db/hot';

/** HS256 access tokens with claims sub, tv (token version), iat and exp, signed with the server's secret (core/secrets.ts). */
export function signAccessToken(user: { id: string; token_version: number }): string {
  return jwt.sign({ tv: user.token_version }, jwtSecret(), {
    algorithm: 'HS256',
    subject: user.id,
    expiresIn: config().JWT_TTL,
  });
}

export interface AccessClaims {
  sub: string;
  tv: number;
}

/**
 * Tokens whose signature verified, by their text: a signature that verified
 * once verifies for as long as the process keeps its secret, so a repeated
 * token skips the HMAC and JSON parsing. Expiry is checked on every use, and
 * the user, its token version and suspension are still read from PostgreSQL
 * on every request, so a password reset or a suspension takes effect on the
 * very next request on every replica. Bounded; the oldest entry goes first.
 */
const verifiedTokens = new Map<string, { claims: AccessClaims; exp: number }>();
const VERIFIED_TOKENS_MAX = 10_000;

const expired = (exp: number) => Math.floor(Date.now() / 1000) >= exp;

/** Verifies a JWT; failures are the spec's 401 types. */
export function verifyAccessToken(token: string): AccessClaims {
  const known = verifiedTokens.get(token);
  if (known) {
    if (!expired(known.exp)) return known.claims;
    verifiedTokens.delete(token);
    throw new AuthenticationError('Access token has expired', 'expired_token_error');
  }
  try {
    const payload = jwt.verify(token, jwtSecret(), { algorithms: ['HS256'] });
    // Every token this server signs has an expiry: one without (signed with the secret some other way) is not one of ours.
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.tv !== 'number' || typeof payload.exp !== 'number') {
      throw new AuthenticationError('Invalid access token', 'token_error');
    }
    const claims = { sub: payload.sub, tv: payload.tv };
    if (verifiedTokens.size >= VERIFIED_TOKENS_MAX) verifiedTokens.delete(verifiedTokens.keys().next().value as string);
    verifiedTokens.set(token, { claims, exp: payload.exp });
    return claims;
  } catch (error) {
    if (error instanceof AuthenticationError) throw error;
    if (error instanceof jwt.TokenExpiredError) throw new AuthenticationError('Access token has expired', 'expired_token_error');
    throw new AuthenticationError('Invalid access token', 'token_error');
  }
}

export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

const USER_SELECT = USER_RECORD_COLUMNS.map((column) => `u.${column} AS "u.${column}"`).join(', ');
const SCOPED = scopeJoinSql('$org', '$workspace');
const USER_SQL = `SELECT ${USER_SELECT} FROM users u WHERE u.id = $user_id`;
const USER_SCOPE_SQL = `SELECT ${USER_SELECT}, ${SCOPED.select} FROM users u ${SCOPED.joins} WHERE u.id = $user_id`;

/**
 * `Authorization: Bearer <jwt>`: valid signature and expiry, an existing
 * user, the current token version (a password reset bumps it, so older tokens
 * fail on the next request). One named statement reads the user, and when known
 * (REST path, GraphQL query variables) the organization, membership and workspace with it.
 */
export const jwtAuthenticator: Authenticator = {
  name: 'access token',
  accepts: looksLikeJwt,
  async authenticate(token, hint) {
    const claims = verifyAccessToken(token);
    if (!isUuid(claims.sub)) throw new AuthenticationError('Invalid access token', 'token_error');
    const [row] = hint
      ? await plainQuery<Record<string, unknown>>(USER_SCOPE_SQL, { user_id: claims.sub, org: hint.org, workspace: hint.workspace }, { prepare: 'auth_jwt_scope' })
      : await plainQuery<Record<string, unknown>>(USER_SQL, { user_id: claims.sub }, { prepare: 'auth_jwt' });
    const nested = row ? nestRow(row) : null;
    const user = nested ? present<UserRecord>(nested.u) : null;
    if (!nested || !user || user.token_version !== claims.tv) throw new AuthenticationError('Invalid access token', 'token_error');
    return { viewer: { user, apiKey: null }, prefetched: hint ? prefetchedScope(hint, nested) : null };
  },
};

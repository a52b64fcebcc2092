import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { MiddlewareFn } from 'type-graphql';
import { config } from '../config/config';
import type { AppContext } from './context';
import { database } from '../db/database';
import { RateLimitedError } from './errors';

/**
 * Request quotas kept in PostgreSQL (rate-limiter-flexible), so every replica
 * counts against the same numbers. The general quota is per authenticated
 * caller (API key, else user; the client IP when anonymous or when the
 * credential is invalid), so made-up credentials cannot open fresh buckets.
 * The account operations (signup, login, forgot and reset password) have a
 * stricter per-IP quota on both transports. A quota of 0 disables it.
 */
const limiters = new Map<string, RateLimiterPostgres>();

function limiter(prefix: string, points: number): RateLimiterPostgres {
  const name = `${prefix}:${points}`;
  let found = limiters.get(name);
  if (!found) {
    found = new RateLimiterPostgres({
      storeClient: database(),
      storeType: 'sequelize',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: prefix,
      points,
      duration: 60,
    });
    limiters.set(name, found);
  }
  return found;
}

async function consume(prefix: string, points: number, key: string): Promise<RateLimiterRes> {
  try {
    return await limiter(prefix, points).consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), points);
  }
}

/** The general quota; returns the X-RateLimit-* headers of the reply. */
export async function enforceRequestQuota(ctx: AppContext): Promise<Record<string, string>> {
  const points = config().RATE_LIMIT_PER_MINUTE;
  if (points <= 0) return {};
  const viewer = ctx.viewer;
  const key = viewer ? (viewer.apiKey ? `key:${viewer.apiKey.id}` : `user:${viewer.user.id}`) : `ip:${ctx.ip}`;
  const result = await consume('api', points, key);
  return { 'X-RateLimit-Limit': String(points), 'X-RateLimit-Remaining': String(result.remainingPoints) };
}

/** The stricter per-IP quota of the account operations, as a resolver middleware. */
export const AuthQuota: MiddlewareFn<AppContext> = async ({ context }, next) => {
  const points = config().AUTH_RATE_LIMIT_PER_MINUTE;
  if (points > 0) await consume('auth', points, `ip:${context.ip}`);
  return next();
};

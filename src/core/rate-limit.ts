import crypto from 'node:crypto';
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

function limiter(prefix: string, points: number, duration = 60): RateLimiterPostgres {
  const name = `${prefix}:${points}:${duration}`;
  let found = limiters.get(name);
  if (!found) {
    found = new RateLimiterPostgres({
      storeClient: database(),
      storeType: 'sequelize',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: prefix,
      points,
      duration,
    });
    limiters.set(name, found);
  }
  return found;
}

/**
 * A bucket's key as stored (`rate_limits.key`, varchar(255), prefixed): as
 * it is when short printable ASCII, else its SHA-256, so a caller's long or
 * odd identifier (a 300-character login name, a NUL character) names a
 * bucket like any other instead of failing the statement.
 */
const storedKey = (key: string) => (/^[\x20-\x7e]{0,128}$/.test(key) ? key : `sha256:${crypto.createHash('sha256').update(key).digest('hex')}`);

/** `duration` in seconds; a per-minute quota reports its limit in X-RateLimit-Limit, a longer window does not. */
async function consume(prefix: string, points: number, key: string, duration = 60): Promise<RateLimiterRes> {
  try {
    return await limiter(prefix, points, duration).consume(storedKey(key));
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), duration === 60 ? points : undefined);
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

/** The stricter per-IP quota of the account operations (429 past it). */
export async function enforceAuthQuota(ip: string): Promise<void> {
  const points = config().AUTH_RATE_LIMIT_PER_MINUTE;
  if (points > 0) await consume('auth', points, `ip:${ip}`);
}

/** The same quota as a resolver middleware. */
export const AuthQuota: MiddlewareFn<AppContext> = async ({ context }, next) => {
  await enforceAuthQuota(context.ip);
  return next();
};

/**
 * Login attempts per account, whatever the client address, so a password
 * cannot be guessed from many addresses at once (the per-IP quota alone
 * allows that). Every attempt takes a point before the password is checked
 * (concurrent attempts cannot slip past the limit); a successful one gives
 * it back with the returned function, so only failures count. `account`
 * names the account the same way whether or not it exists, so a 429 tells
 * nothing about existence.
 */
export async function consumeLoginAttempt(account: string): Promise<() => Promise<void>> {
  const { LOGIN_ACCOUNT_RATE_LIMIT: points, LOGIN_ACCOUNT_RATE_WINDOW_SECONDS: window } = config();
  if (points <= 0) return async () => undefined;
  await consume('login', points, account, window);
  return async () => {
    await limiter('login', points, window).reward(storedKey(account), 1);
  };
}

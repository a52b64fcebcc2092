import crypto from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { config } from '../../config/config';
import { database } from '../../db/database';
import { RateLimitedError } from '../errors';

/**
 * Request quotas kept in PostgreSQL (rate-limiter-flexible), so every replica
 * counts against the same numbers. Per credential (per IP when anonymous),
 * with a stricter per-IP quota on the account endpoints. 0 disables a quota.
 */
const AUTH_PATHS = new Set(['/api/v1/auth/signup', '/api/v1/auth/login', '/api/v1/auth/forgot-password', '/api/v1/auth/reset-password']);
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

function hashed(credential: string): string {
  return crypto.createHash('sha256').update(credential).digest('hex').slice(0, 40);
}

/** Consumes one point; throws 429 with Retry-After when a quota is spent. */
export async function enforceRateLimit(input: { path: string; ip: string; credential: string | null }): Promise<Record<string, string>> {
  const settings = config();
  const checks: { prefix: string; points: number; key: string }[] = [];
  if (AUTH_PATHS.has(input.path) && settings.AUTH_RATE_LIMIT_PER_MINUTE > 0) {
    checks.push({ prefix: 'auth', points: settings.AUTH_RATE_LIMIT_PER_MINUTE, key: `ip:${input.ip}` });
  }
  if (settings.RATE_LIMIT_PER_MINUTE > 0) {
    checks.push({
      prefix: 'api',
      points: settings.RATE_LIMIT_PER_MINUTE,
      key: input.credential ? `cred:${hashed(input.credential)}` : `ip:${input.ip}`,
    });
  }
  const headers: Record<string, string> = {};
  for (const check of checks) {
    try {
      const result = await limiter(check.prefix, check.points).consume(check.key);
      headers['X-RateLimit-Limit'] = String(check.points);
      headers['X-RateLimit-Remaining'] = String(result.remainingPoints);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
  }
  return headers;
}

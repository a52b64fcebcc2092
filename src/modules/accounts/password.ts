import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { config } from '../../config/config';

/** crypto.scrypt with a callback runs on libuv's threadpool: a hash never blocks the event loop. */
const scryptOnPool = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

/**
 * Hashes running at once in this process. Each takes 128 MiB and one of
 * libuv's four threads (which fs, dns and zlib share), so a burst of logins
 * with made-up names waits here instead of taking every thread and half a
 * gigabyte; the per-IP and per-account quotas bound how long the queue gets.
 */
const MAX_CONCURRENT_HASHES = 2;
let running = 0;
let mostRunning = 0;
/** The most hashes that ran at once so far (for tests). */
export const mostConcurrentHashes = () => mostRunning;
const waiting: (() => void)[] = [];

/** scrypt computations run so far, by N (what a login costs is checked by tests through this). */
export const scryptRuns = new Map<number, number>();

async function scrypt(password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions): Promise<Buffer> {
  const n = options.N ?? 0;
  scryptRuns.set(n, (scryptRuns.get(n) ?? 0) + 1);
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  mostRunning = Math.max(mostRunning, running);
  try {
    return await scryptOnPool(password, salt, keylen, options);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}
const R = 8;
const P = 1;
const KEY_LENGTH = 64;

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** The cost new hashes get: N = 2^PASSWORD_SCRYPT_LOG_N (2^17 unless the test suite lowers it). */
function currentParams(): ScryptParams {
  return { N: 2 ** config().PASSWORD_SCRYPT_LOG_N, r: R, p: P };
}

/** Node refuses more than 32 MiB by default; OpenSSL needs 128·r·(N + p + 2) bytes (128 MiB and a little at N = 2^17). */
function withMemory(params: ScryptParams): crypto.ScryptOptions {
  return { ...params, maxmem: 128 * params.r * (params.N + params.p + 2) };
}

/** Memory-hard scrypt hash with a per-user salt: `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const params = currentParams();
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, withMemory(params));
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

function parse(stored: string): (ScryptParams & { salt: Buffer; hash: Buffer }) | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash) return null;
  // A stored hash is ours, but a malformed one must fail closed rather than ask for gigabytes.
  if (![params.N, params.r, params.p].every(Number.isSafeInteger) || params.N < 2 || params.N > 2 ** 20 || params.r > 32 || params.p > 16) return null;
  return { ...params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const actual = await scrypt(password, parsed.salt, parsed.hash.length, withMemory(parsed));
  return actual.length === parsed.hash.length && crypto.timingSafeEqual(actual, parsed.hash);
}

/** Whether a stored hash was made with a weaker cost than new hashes get (then it is replaced on the next login). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  const wanted = currentParams();
  return !parsed || parsed.N < wanted.N || parsed.r < wanted.r || parsed.p < wanted.p || parsed.hash.length < KEY_LENGTH;
}

/**
 * A login's password check that costs at least the current scrypt cost
 * whatever the account: an unknown one is checked against a dummy hash, and a
 * wrong password against a weaker stored hash (not yet rehashed, which only a
 * successful login does) also pays a check at the current cost, so the
 * timing of a 401 tells neither whether the account exists nor how old its
 * hash is.
 */
export async function checkLoginPassword(password: string, stored: string | null): Promise<boolean> {
  if (stored === null) {
    await verifyPassword(password, await dummyPasswordHash());
    return false;
  }
  const valid = await verifyPassword(password, stored);
  if (!valid && needsRehash(stored)) await verifyPassword(password, await dummyPasswordHash());
  return valid;
}

/** A hash of a random password at the current cost, so timing does not tell whether a user exists. */
const dummyHashes = new Map<number, Promise<string>>();
export function dummyPasswordHash(): Promise<string> {
  const { N } = currentParams();
  let hash = dummyHashes.get(N);
  if (!hash) {
    hash = hashPassword(crypto.randomBytes(16).toString('hex'));
    dummyHashes.set(N, hash);
  }
  return hash;
}

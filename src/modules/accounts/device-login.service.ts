import crypto from 'node:crypto';
import { config } from '../../config/config';
import { expirySweep } from '../../core/background';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../core/errors';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';
import { publicLink } from '../mail/mail.service';
import { signAccessToken } from './jwt';

/**
 * Device-code login (decisions §14): the CLI asks for a code pair, shows the
 * short user code and opens `/login/device?code=…`, where a person signs in
 * and approves or denies it; the CLI polls the device code's status every
 * 2 s and exchanges an approved one, once, for an access token.
 *
 * - The device code is 32 random bytes (base64url); only its SHA-256 is stored.
 * - The user code is 8 characters of an alphabet without look-alikes
 *   (no 0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V), shown as `XXXX-XXXX`, entered in
 *   any case, with or without the dash or spaces.
 * - Codes expire after DEVICE_CODE_TTL_SECONDS (10 minutes by default) and are
 *   decided once (approve or deny) and exchanged once.
 */

const USER_CODE_ALPHABET = 'ACDEFGHJKMNPQRTWXY34679';
const USER_CODE_LENGTH = 8;

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

function newUserCode(): string {
  let code = '';
  for (let index = 0; index < USER_CODE_LENGTH; index += 1) code += USER_CODE_ALPHABET[crypto.randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `abcd-efgh`, `ABCD EFGH`, `abcdefgh` → `ABCDEFGH`; null when it cannot be a user code. */
export function normalizeUserCode(text: string): string | null {
  const code = text.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH || [...code].some((char) => !USER_CODE_ALPHABET.includes(char))) return null;
  return code;
}

/** How a user code is shown: two groups of four. */
export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

export interface DeviceCodeGrant {
  device_code: string;
  user_code: string;
  verification_url: string;
  verification_url_complete: string;
  expires_in: number;
  expires_at: Date;
  interval: number;
}

/**
 * Codes a day past their expiry are deleted (anyone may ask for codes, so
 * the table would otherwise grow without end); until then a late poll still
 * reads `expired_token`.
 */
const sweepExpired = expirySweep('device-code-sweep', "DELETE FROM device_codes WHERE expires_at < now() - interval '1 day'");

export async function createDeviceCode(clientIp: string): Promise<DeviceCodeGrant> {
  sweepExpired();
  const ttl = config().DEVICE_CODE_TTL_SECONDS;
  const deviceCode = crypto.randomBytes(32).toString('base64url');
  // A pending user code is unique (partial index); a collision among 23^8 codes is retried.
  for (let attempt = 0; ; attempt += 1) {
    const userCode = newUserCode();
    const [row] = await plainQuery<{ expires_at: Date }>(
      `INSERT INTO device_codes (device_code_hash, user_code, client_ip, expires_at)
       VALUES ($hash, $user_code, $ip, now() + make_interval(secs => $ttl))
       ON CONFLICT (user_code) WHERE status = 'pending' DO NOTHING
       RETURNING expires_at`,
      { hash: sha256(deviceCode), user_code: userCode, ip: clientIp, ttl },
    );
    if (row) {
      const display = displayUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: display,
        verification_url: publicLink('/login/device'),
        verification_url_complete: publicLink(`/login/device?code=${encodeURIComponent(display)}`),
        expires_in: ttl,
        expires_at: row.expires_at,
        interval: 2,
      };
    }
    if (attempt >= 5) throw new ConflictError('Could not allocate a user code; try again');
  }
}

interface DeviceRow {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'used';
  user_id: string | null;
  user_code: string;
  expired: boolean;
  /** Approved under a token version the user has since left behind (a password reset revokes every earlier session). */
  withdrawn: boolean;
  /** The approving user is suspended. */
  suspended: boolean;
  created_at: Date;
  expires_at: Date;
}

/** A code with what its approving user has become since (`d`, joined to its user `u`). */
const DEVICE_ROWS = `SELECT d.id, d.status, d.user_id, d.user_code, d.expires_at <= now() AS expired, d.created_at, d.expires_at,
       coalesce(u.token_version <> d.token_version, false) AS withdrawn, coalesce(u.is_suspended, false) AS suspended
  FROM device_codes d LEFT JOIN users u ON u.id = d.user_id`;

/** A status the CLI reads: `user_id` only once approved (its presence is what the CLI waits for). */
export interface DeviceCodeStatus {
  status: 'pending' | 'approved' | 'denied' | 'expired';
  user_id: string | null;
  expires_at: Date;
}

/**
 * The status the exchange would act on, so the CLI is never sent to an exchange that must fail: an approval
 * withdrawn since (a password reset) or of a suspended user reads `denied` (the exchange's 403), and an approved
 * code past its expiry that was never exchanged reads `expired` (the exchange's `expired_token_error`).
 */
function statusOf(row: DeviceRow): DeviceCodeStatus['status'] {
  // In the exchange's order: denied, used, expired, then an approval withdrawn or of a suspended user.
  if (row.status === 'denied') return 'denied';
  if (row.status === 'used') return 'approved';
  if (row.expired) return 'expired';
  if (row.status === 'approved' && (row.withdrawn || row.suspended)) return 'denied';
  return row.status;
}

/** `GET /auth/device/code/{device_code}`: 404 for a code never issued (the CLI reads any 4xx as pending). */
export async function deviceCodeStatus(deviceCode: string): Promise<DeviceCodeStatus> {
  const [row] = await plainQuery<DeviceRow>(`${DEVICE_ROWS} WHERE d.device_code_hash = $hash`, { hash: sha256(deviceCode) }, { prepare: 'device-code-status' });
  if (!row) throw new NotFoundError('Device code');
  const status = statusOf(row);
  return { status, user_id: status === 'approved' ? row.user_id : null, expires_at: row.expires_at };
}

/** A pending, unexpired code by its user code (what the page shows before approval), or 404. */
export async function pendingUserCode(userCode: string): Promise<{ user_code: string; created_at: Date; expires_at: Date }> {
  const code = normalizeUserCode(userCode);
  if (!code) throw new NotFoundError('Device code');
  const [row] = await plainQuery<DeviceRow>(
    `${DEVICE_ROWS} WHERE d.user_code = $code AND d.status = 'pending' AND d.expires_at > now()`,
    { code },
    { prepare: 'device-code-pending' },
  );
  if (!row) throw new NotFoundError('Device code');
  return { user_code: displayUserCode(row.user_code), created_at: row.created_at, expires_at: row.expires_at };
}

/**
 * `POST /auth/device/approve`: the signed-in person approves or denies a
 * pending code, once (a conditional UPDATE: two decisions racing, one wins;
 * the other, like an unknown, decided or expired code, is 404).
 */
export async function decideDeviceCode(viewer: Viewer, userCode: string, approve: boolean): Promise<{ status: 'approved' | 'denied'; user_code: string }> {
  // Approving hands the device a full access token of the user: only the user's own sign-in (a JWT) may, never an
  // API key (a limited key would otherwise mint an unlimited token).
  if (viewer.apiKey) throw new ForbiddenError('Approve a device login signed in as yourself (an access token), not with an API key');
  const code = normalizeUserCode(userCode);
  if (!code) throw new NotFoundError('Device code');
  const [row] = await plainQuery<{ user_code: string }>(
    `UPDATE device_codes SET status = $status, user_id = $user_id, token_version = $token_version, decided_at = now()
      WHERE user_code = $code AND status = 'pending' AND expires_at > now()
      RETURNING user_code`,
    { code, status: approve ? 'approved' : 'denied', user_id: viewer.user.id, token_version: viewer.user.token_version },
  );
  if (!row) throw new NotFoundError('Device code');
  return { status: approve ? 'approved' : 'denied', user_code: displayUserCode(row.user_code) };
}

export interface DeviceToken {
  access_token: string;
  token_type: string;
  expires_in: number;
}

/**
 * `POST /auth/device/token`: an approved code becomes an access token of the
 * approving user, once (approved → used in one conditional UPDATE), while
 * the user's token version is still the one it was approved under (a
 * password reset since withdraws the approval: 403) and the user is not
 * suspended (403 `user_suspended`; the code stays unused). Pending, denied,
 * expired, used or unknown codes are refused with the envelope.
 */
export async function exchangeDeviceCode(deviceCode: string): Promise<DeviceToken> {
  const hash = sha256(deviceCode);
  const [used] = await plainQuery<{ id: string; token_version: number }>(
    `UPDATE device_codes d SET status = 'used'
       FROM users u
      WHERE d.device_code_hash = $hash AND d.status = 'approved' AND d.expires_at > now() AND u.id = d.user_id
        AND u.token_version = d.token_version AND NOT u.is_suspended
      RETURNING u.id, u.token_version`,
    { hash },
  );
  if (used) return { access_token: signAccessToken(used), token_type: 'bearer', expires_in: config().JWT_TTL };
  const [row] = await plainQuery<DeviceRow>(`${DEVICE_ROWS} WHERE d.device_code_hash = $hash`, { hash });
  if (!row) throw new InvalidError('Unknown device code', 'token_error');
  if (row.status === 'used') throw new InvalidError('This device code was already exchanged for a token', 'token_error');
  if (row.status === 'denied') throw new ForbiddenError('The login request was denied');
  if (row.expired) throw new InvalidError('The device code expired; start the login again', 'expired_token_error');
  if (row.status === 'approved' && row.suspended) throw new ForbiddenError('This account is suspended', 'user_suspended');
  if (row.status === 'approved') throw new ForbiddenError("The approval was withdrawn: the account's password was reset since; start the login again");
  throw new InvalidError('Authorization pending: approve the code on the login page first', 'token_error');
}

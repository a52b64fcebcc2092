import type { AppContext } from '../core/context';
import { expirySweep } from '../core/background';
import { ConflictError, validationFailure, type AppError } from '../core/errors';
import { plainQuery } from '../db/hot';
import { serverMac } from '../core/secrets';

/**
 * `Idempotency-Key` on REST POSTs, as the best-known payment APIs define
 * it: the first request with a key runs, and its reply is kept 24 hours;
 * the same key from the same credential with the same request replays that
 * reply (`Idempotent-Replayed: true`) without running it again; with another
 * request it is 422; while the first still runs, 409. Every reply is kept,
 * 5xx included (the request may have written before it failed, so running
 * it again is not safe), except 429, which refuses a request before it runs:
 * the key can be used again then. A reply
 * that carries a secret shown once (a new API key, a token: @NoStore) is not
 * stored either; a replay of it answers 409 saying so. Keys belong to a
 * credential (the user, and the API key when one is used); requests without
 * one (signup, login) ignore the header.
 */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A key still in progress after this long belongs to a request whose process died: the next claim takes it over. */
export const IN_PROGRESS_STALE_MINUTES = 5;

/** Visible ASCII (no spaces), 1 to 255 characters (a UUID is the usual key); the OpenAPI document states the same pattern. */
export const IDEMPOTENCY_KEY_PATTERN = '^[!-~]{1,255}$';
const KEY_FORMAT = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export interface KeptReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim =
  | { kind: 'claimed'; credential: string; key: string }
  | { kind: 'replay'; reply: KeptReply }
  | { kind: 'refused'; error: AppError };

/** The credential a key belongs to: the API key used, else the user. */
function credentialOf(ctx: AppContext): string | null {
  const viewer = ctx.viewer;
  if (!viewer) return null;
  return viewer.apiKey ? `key:${viewer.apiKey.id}` : `user:${viewer.user.id}`;
}

/**
 * What makes two requests "the same": method, path, query string and the
 * body's bytes as sent (a client's retry resends them; an empty body and
 * one that is not JSON differ, and no value is serialised again, however
 * deep). Kept 24 hours, so keyed (serverMac): a plain hash of a body that
 * holds a secret's value would let anyone who reads the table confirm a
 * guess of it.
 */
export function fingerprintOf(method: string, url: URL, body: Buffer): string {
  return serverMac('idempotency-fingerprint', `${method} ${url.pathname}${url.search}\n`, body);
}

/** Takes `key` for this request, or answers why not (replay, 422, 409); null when the header does not apply. */
export async function claimKey(ctx: AppContext, key: string, fingerprint: string): Promise<Claim | null> {
  const credential = credentialOf(ctx);
  if (!credential) return null;
  if (!KEY_FORMAT.test(key)) {
    return { kind: 'refused', error: validationFailure(['header', 'Idempotency-Key'], 'Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)') };
  }
  // A key past its expiry is taken afresh, and so is one left in progress longer than any request runs (its process died).
  const [claimed] = await plainQuery<{ claimed: boolean }>(
    `INSERT INTO idempotency_keys (credential, key, fingerprint, expires_at)
     VALUES ($credential, $key, $fingerprint, now() + make_interval(hours => $ttl))
     ON CONFLICT (credential, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, status = NULL, reply_headers = NULL, reply_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at < now()
         OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < now() - make_interval(mins => $stale_minutes))
     RETURNING true AS claimed`,
    { credential, key, fingerprint, ttl: IDEMPOTENCY_TTL_HOURS, stale_minutes: IN_PROGRESS_STALE_MINUTES },
    { prepare: 'idempotency-claim' },
  );
  if (claimed) {
    sweepExpired();
    return { kind: 'claimed', credential, key };
  }
  const [kept] = await plainQuery<{ fingerprint: string; status: number | null; reply_headers: Record<string, string> | null; reply_body: string | null }>(
    'SELECT fingerprint, status, reply_headers, reply_body FROM idempotency_keys WHERE credential = $credential AND key = $key',
    { credential, key },
    { prepare: 'idempotency-read' },
  );
  if (kept && kept.fingerprint !== fingerprint) {
    return { kind: 'refused', error: validationFailure(['header', 'Idempotency-Key'], 'This Idempotency-Key was used with a different request') };
  }
  if (!kept || kept.status === null) return { kind: 'refused', error: new ConflictError('A request with this Idempotency-Key is still in progress; retry later') };
  if (kept.reply_body === null) {
    return { kind: 'refused', error: new ConflictError('The request with this Idempotency-Key completed; its reply carried a secret, which is not kept') };
  }
  return { kind: 'replay', reply: { status: kept.status, headers: kept.reply_headers ?? {}, body: kept.reply_body } };
}

/**
 * Records the reply of a claimed key: kept for replays, or, for a request
 * that did not run (429, or none: a read streamed, a failure before any
 * reply), the key given back. `secret`: the reply is not stored (only that
 * it completed).
 */
export async function settleKey(claim: { credential: string; key: string }, reply: KeptReply | null, secret: boolean): Promise<void> {
  if (!reply || reply.status === 429) {
    await plainQuery('DELETE FROM idempotency_keys WHERE credential = $credential AND key = $key', claim, { prepare: 'idempotency-release' });
    return;
  }
  await plainQuery(
    `UPDATE idempotency_keys SET status = $status, reply_headers = $headers::jsonb, reply_body = $body WHERE credential = $credential AND key = $key`,
    { ...claim, status: reply.status, headers: JSON.stringify(secret ? {} : reply.headers), body: secret ? null : reply.body },
    { prepare: 'idempotency-settle' },
  );
}

/** Deletes expired keys, at most once per ten minutes per process, after the reply. */
const sweepExpired = expirySweep('idempotency-sweep', 'DELETE FROM idempotency_keys WHERE expires_at < now()');

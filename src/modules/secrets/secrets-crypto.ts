import crypto from 'node:crypto';
import { config } from '../../config/config';
import { dataDirSecret } from '../../core/secrets';

/**
 * Sealing user secrets: AES-256-GCM (node:crypto), a fresh random 12-byte IV
 * per value, the 16-byte tag stored beside the ciphertext, and the row's
 * identity (`user_secrets:<user id>:<secret id>`) as additional authenticated
 * data, so a sealed value copied onto another row or user does not open.
 *
 * Keys are 32 bytes, written as 64 hex digits or as base64 (either alphabet,
 * padding optional). A key's id is the first 8 hex digits of its SHA-256:
 * stored with every value, it says which key sealed it, so `open` picks the
 * key by id and a value sealed under a key it does not hold fails clearly
 * (SecretKeyMismatchError) instead of as a bad tag.
 */
export interface SecretsKey {
  id: string;
  key: Buffer;
}

export interface SealedValue {
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  key_id: string;
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

/** A value sealed under a key this process does not hold (rotated away, or another deployment's). */
export class SecretKeyMismatchError extends Error {
  constructor(sealedWith: string, held: readonly string[]) {
    super(`Secret was sealed with key ${sealedWith}; this process holds ${held.join(', ') || 'no key'} (SECRETS_KEY, SECRETS_KEY_PREVIOUS)`);
    this.name = 'SecretKeyMismatchError';
  }
}

/** 64 hex digits or base64 of exactly 32 bytes; anything else throws (config.ts checks the same shape at boot). */
export function parseSecretsKey(text: string): SecretsKey {
  const trimmed = text.trim();
  let key: Buffer | null = null;
  if (HEX_KEY.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (BASE64_KEY.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  if (!key || key.length !== KEY_BYTES) throw new Error('A secrets key must be 32 bytes: 64 hex digits or base64');
  return { id: keyId(key), key };
}

/** First 8 hex digits of the key's SHA-256: names the key without revealing it. */
export function keyId(key: Buffer): string {
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** The additional authenticated data binding a sealed value to its row. */
export function secretAad(userId: string, secretId: string): Buffer {
  return Buffer.from(`user_secrets:${userId}:${secretId}`, 'utf8');
}

export function seal(plain: string, key: SecretsKey, aad: Buffer): SealedValue {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv(ALGORITHM, key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { ciphertext, iv, auth_tag: cipher.getAuthTag(), key_id: key.id };
}

/** Opens a sealed value with the key its `key_id` names; a missing key or a tampered value throws. */
export function open(sealed: SealedValue, keys: readonly SecretsKey[], aad: Buffer): string {
  const key = keys.find((candidate) => candidate.id === sealed.key_id);
  if (!key) throw new SecretKeyMismatchError(sealed.key_id, keys.map((candidate) => candidate.id));
  const decipher = crypto.createDecipheriv(ALGORITHM, key.key, sealed.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.auth_tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}

/** Values this long or longer show their first 3 and last 4 characters; shorter ones show nothing. */
export const MASK_MIN_LENGTH = 16;
export const FULL_MASK = '********';

/**
 * `sk-…x9Yz` for a value of at least 16 characters (counted in code points,
 * so a character is never cut in half); `********` otherwise, whatever the
 * length, so a short value's length is not shown either.
 */
export function maskValue(value: string): string {
  const chars = Array.from(value);
  if (chars.length < MASK_MIN_LENGTH) return FULL_MASK;
  return `${chars.slice(0, 3).join('')}…${chars.slice(-4).join('')}`;
}

/** The current key (seals) and the previous one (only opens), read once per process. */
export interface SecretsKeyring {
  current: SecretsKey;
  all: readonly SecretsKey[];
}

let keyring: SecretsKeyring | undefined;

/** SECRETS_KEY, else (outside production, where config refuses to start without it) a key generated once into DATA_DIR/secrets-key, like the development JWT secret. */
function readCurrentKeyText(): string {
  return config().SECRETS_KEY || dataDirSecret('secrets-key', () => crypto.randomBytes(KEY_BYTES).toString('hex'));
}

export function secretsKeyring(): SecretsKeyring {
  if (!keyring) {
    const current = parseSecretsKey(readCurrentKeyText());
    const previousText = config().SECRETS_KEY_PREVIOUS;
    const previous = previousText ? parseSecretsKey(previousText) : null;
    keyring = { current, all: previous && previous.id !== current.id ? [current, previous] : [current] };
  }
  return keyring;
}

/** Reads the keys again on next use (after the configuration changed: tests, a rotation in process). */
export function forgetSecretsKeyring(): void {
  keyring = undefined;
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { config } from '../config/config';

/** Hex sha256: how reset tokens and API keys are stored (never the secret itself). */
export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` uniformly random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/**
 * A secret the server keeps under DATA_DIR when none is configured (outside
 * production): the file `name`, made once by `generate` and read ever
 * after. Made atomically (written aside, then linked into place), so
 * processes starting together agree on one value.
 */
export function dataDirSecret(name: string, generate: () => string): string {
  const file = path.resolve(config().DATA_DIR, name);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const aside = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    try {
      fs.writeFileSync(aside, generate(), { mode: 0o600 });
      fs.linkSync(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(aside, { force: true });
    }
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  // An empty key would still key HMACs: every process would sign with nothing.
  if (!secret) throw new Error(`${file} is empty: delete it and a new secret is made at the next start`);
  return secret;
}

let secretKey: crypto.KeyObject | undefined;

/**
 * The server's secret: JWT_SECRET, or outside production one generated once
 * and kept under DATA_DIR. It signs access tokens and keys serverMac. One
 * KeyObject per process: jsonwebtoken would otherwise derive it on every call.
 */
export function jwtSecret(): crypto.KeyObject {
  secretKey ??= crypto.createSecretKey(Buffer.from(config().JWT_SECRET || dataDirSecret('jwt-secret', () => crypto.randomBytes(48).toString('base64url')), 'utf8'));
  return secretKey;
}

/**
 * A MAC by this server, for values it hands out and later checks (signed
 * download links, the device page's CSRF tokens) and for digests of what
 * clients sent that it keeps (idempotency fingerprints: unkeyed, one would
 * let a guessed body, a secret's value, be confirmed): HMAC-SHA-256 under
 * the JWT secret, separated by `purpose` so one kind of value never passes
 * for another. `message` is MACed as its parts in turn.
 */
export function serverMac(purpose: string, ...message: (string | Uint8Array)[]): string {
  const mac = crypto.createHmac('sha256', jwtSecret()).update(`${purpose}\n`);
  for (const part of message) mac.update(part);
  return mac.digest('base64url');
}

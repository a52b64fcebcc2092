import crypto from 'node:crypto';
import {
  FULL_MASK,
  keyId,
  maskValue,
  open,
  parseSecretsKey,
  seal,
  secretAad,
  SecretKeyMismatchError,
} from '../../src/modules/secrets/secrets-crypto';

const hexKey = () => parseSecretsKey(crypto.randomBytes(32).toString('hex'));
const aad = secretAad('user-1', 'secret-1');

describe('sealing user secrets', () => {
  it('opens what it sealed, with a fresh 12-byte IV and a 16-byte tag each time, and no plain text in the ciphertext', () => {
    const key = hexKey();
    const value = 'sk-live-0123456789abcdef 🚀 ünïcødé';
    const first = seal(value, key, aad);
    const second = seal(value, key, aad);
    expect(first.iv).toHaveLength(12);
    expect(first.auth_tag).toHaveLength(16);
    expect(first.iv.equals(second.iv)).toBe(false);
    expect(first.ciphertext.equals(second.ciphertext)).toBe(false);
    expect(first.ciphertext.toString('utf8')).not.toContain('sk-live');
    expect(first.key_id).toBe(key.id);
    expect(open(first, [key], aad)).toBe(value);
  });

  it('fails clearly when the value was sealed under a key id it does not hold', () => {
    const sealedWith = hexKey();
    const other = hexKey();
    const sealed = seal('sk-0123456789abcdef', sealedWith, aad);
    expect(() => open(sealed, [other], aad)).toThrow(SecretKeyMismatchError);
    expect(() => open(sealed, [other], aad)).toThrow(new RegExp(`sealed with key ${sealedWith.id}; this process holds ${other.id}`));
  });

  it('opens a value sealed under the previous key when both are held (rotation)', () => {
    const previous = hexKey();
    const current = hexKey();
    const sealed = seal('old value', previous, aad);
    expect(open(sealed, [current, previous], aad)).toBe('old value');
  });

  it('refuses a tampered ciphertext, tag or IV, and a value moved to another row', () => {
    const key = hexKey();
    const sealed = seal('sk-0123456789abcdef', key, aad);
    const flipped = (buffer: Buffer) => Buffer.from(buffer.map((byte, index) => (index === 0 ? byte ^ 1 : byte)));
    expect(() => open({ ...sealed, ciphertext: flipped(sealed.ciphertext) }, [key], aad)).toThrow();
    expect(() => open({ ...sealed, auth_tag: flipped(sealed.auth_tag) }, [key], aad)).toThrow();
    expect(() => open({ ...sealed, iv: flipped(sealed.iv) }, [key], aad)).toThrow();
    expect(() => open(sealed, [key], secretAad('user-2', 'secret-1'))).toThrow();
    expect(() => open(sealed, [key], secretAad('user-1', 'secret-2'))).toThrow();
  });

  it('reads a key as 64 hex digits or base64 of 32 bytes, and names it by the first 8 hex digits of its SHA-256', () => {
    const bytes = crypto.randomBytes(32);
    const id = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 8);
    expect(parseSecretsKey(bytes.toString('hex')).id).toBe(id);
    expect(parseSecretsKey(bytes.toString('hex').toUpperCase()).id).toBe(id);
    expect(parseSecretsKey(bytes.toString('base64')).id).toBe(id);
    expect(parseSecretsKey(bytes.toString('base64url')).id).toBe(id);
    expect(keyId(bytes)).toBe(id);
    for (const bad of ['', 'ab'.repeat(31), 'ab'.repeat(33), crypto.randomBytes(16).toString('base64'), crypto.randomBytes(48).toString('base64')]) {
      expect(() => parseSecretsKey(bad)).toThrow(/32 bytes/);
    }
  });
});

describe('masking a value', () => {
  it('shows the first 3 and last 4 characters of a value of 16 characters or more', () => {
    expect(maskValue('sk-abcdefghijklmnopqrstuvwxyz9Yz')).toBe('sk-…z9Yz');
    expect(maskValue('0123456789abcdef')).toBe('012…cdef');
  });

  it('hides a shorter value entirely, its length included', () => {
    expect(maskValue('a')).toBe(FULL_MASK);
    expect(maskValue('0123456789abcde')).toBe(FULL_MASK);
    expect(maskValue('x'.repeat(15))).toBe(maskValue('y'));
  });

  it('never cuts a character in half', () => {
    expect(maskValue(`🚀🚀🚀${'x'.repeat(10)}🔑🔑🔑🔑`)).toBe('🚀🚀🚀…🔑🔑🔑🔑');
  });
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataDirSecret } from '../../src/core/secrets';

/** A secret generated once under DATA_DIR (the development JWT secret, the secrets key). */
describe('dataDirSecret', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-dir-secret-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes the file once, readable by its owner only, and reads it ever after', () => {
    const file = path.join(dir, 'once', 'secret');
    const first = dataDirSecret(file, () => crypto.randomBytes(16).toString('hex'));
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(dataDirSecret(file, () => 'another')).toBe(first);
  });

  it('keeps the value of a process that made the file first, and leaves nothing aside', () => {
    const file = path.join(dir, 'raced');
    // Another process links its file into place while this one writes its own aside.
    const value = dataDirSecret(file, () => {
      fs.writeFileSync(file, 'theirs\n');
      return 'mine';
    });
    expect(value).toBe('theirs');
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('raced'))).toEqual(['raced']);
  });

  it('refuses an empty file (an empty key would sign with nothing)', () => {
    const file = path.join(dir, 'empty');
    fs.writeFileSync(file, '\n');
    expect(() => dataDirSecret(file, () => 'unused')).toThrow(/is empty/);
  });
});

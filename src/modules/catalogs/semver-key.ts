import semver from 'semver';

/**
 * Catalog versions are strict semver (`1.2.3`, `1.2.3-rc.1`; no leading `v`,
 * no build metadata, which has no precedence and would make two equal
 * versions look different).
 */
export function isCatalogVersion(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 128 || semver.valid(value) !== value) return false;
  // semver keeps numeric prerelease parts of 2^53 - 1 or more as strings; they could not be ordered as numbers.
  return semver.prerelease(value)?.every((part) => typeof part === 'number' || !/^\d+$/.test(part)) ?? true;
}

const NUMBER_WIDTH = 20; // semver numbers are at most Number.MAX_SAFE_INTEGER (16 digits)

const pad = (value: number) => String(value).padStart(NUMBER_WIDTH, '0');

/**
 * The semver precedence of a version as a string that sorts byte-wise (the
 * columns use COLLATE "C"), so PostgreSQL orders versions with a plain
 * `ORDER BY version_key DESC`:
 *
 *   major.minor.patch  zero-padded numbers
 *   release            `~` (0x7E), above every prerelease
 *   prerelease         `-` then each identifier after `!` (0x21, below every
 *                      identifier character, so a shorter list sorts first):
 *                      numeric ones as `0` + padded number (numeric order,
 *                      below alphanumeric), alphanumeric ones as `1` + text
 *                      (ASCII order)
 *
 * 2.0.0 > 1.10.0 > 1.9.0 and 1.0.0 > 1.0.0-rc.2 > 1.0.0-rc.1 > 1.0.0-alpha.
 */
export function versionKey(version: string): string {
  const parsed = semver.parse(version);
  if (!parsed) throw new Error(`Not a semantic version: ${version}`);
  const core = `${pad(parsed.major)}.${pad(parsed.minor)}.${pad(parsed.patch)}`;
  if (!parsed.prerelease.length) return `${core}~`;
  const identifiers = parsed.prerelease.map((part) => (typeof part === 'number' ? `0${pad(part)}` : `1${part}`));
  return `${core}-${identifiers.map((part) => `!${part}`).join('')}`;
}

import fs from 'node:fs';
import path from 'node:path';

/**
 * Rows of the tenancy matrix (tests/integration/tenancy/tenancy.test.ts).
 * Each domain lists its own organization-scoped endpoints in
 * tests/integration/<domain>/<name>.tenancy.ts (`export const rows:
 * EndpointRow[]`); the matrix collects every such file, so a new domain
 * adds its rows by adding one file in its own test folder.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The fixture every row is sent against: one organization's resources. */
export interface Target {
  org: string;
  ws: string;
  /** A non-default, empty project of `ws`. */
  projectKey: string;
  /** The id of the default project of `ws`. */
  defaultProjectId: string;
  /** A member other than the reader (the contributor). */
  memberId: string;
  /** A user who is not a member yet. */
  memberEmail: string;
  /** A session with workspace visibility, and a session group, in `ws`. */
  sessionId: string;
  groupId: string;
  /** A red-team assessment and a pending workflow run (in the default project) of `ws`. */
  assessmentId: string;
  runId: string;
  unique: () => string;
}

/**
 * One organization-scoped endpoint: the route exactly as in its @Rest
 * decorator, a path builder and (for writes) a valid body builder. The
 * owner sends every write once, in file order (files sorted by path), so a
 * write that destroys part of the fixture (delete, freeze) comes last in its
 * file and no file relies on another file's writes.
 */
export interface EndpointRow {
  method: Method;
  route: string;
  path: (t: Target) => string;
  body?: (t: Target) => unknown;
  /**
   * A POST that only reads what the reader may read (a dataset download
   * link): the reader's 403 row does not apply; the reader succeeds instead.
   */
  readerMay?: boolean;
}

/**
 * Optional fixture of a row file (`export async function setup`): resources
 * its rows address by fixed names, created by the owner once the target
 * exists and before any row is sent.
 */
export type TenancySetup = (target: Target, sendAsOwner: (method: Method, path: string, body: unknown) => Promise<{ status: number; body: any }>) => Promise<void>;

export const INTEGRATION_DIR = path.resolve(__dirname, '../integration');

/** Every tests/integration/<folder>/*.tenancy.ts file, sorted, with its rows. */
export function tenancyRowFiles(): { file: string; rows: EndpointRow[]; setup?: TenancySetup }[] {
  const files: string[] = [];
  for (const folder of fs.readdirSync(INTEGRATION_DIR, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const name of fs.readdirSync(path.join(INTEGRATION_DIR, folder.name))) {
      if (name.endsWith('.tenancy.ts')) files.push(`${folder.name}/${name}`);
    }
  }
  return files.sort().map((file) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each file's rows, found by name
    const module = require(path.join(INTEGRATION_DIR, file)) as { rows?: EndpointRow[]; setup?: TenancySetup };
    if (!Array.isArray(module.rows) || module.rows.length === 0) throw new Error(`${file} must export a non-empty \`rows: EndpointRow[]\``);
    return { file, rows: module.rows, setup: module.setup };
  });
}

import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import mime from 'mime-types';
import tar from 'tar-stream';
import type { AppContext } from '../../core/context';
import { ForbiddenError, NotFoundError } from '../../core/errors';
import type { BodyRoute } from '../../core/module';
import { resolveOrg } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { serverMac } from '../accounts/jwt';
import { publicLink } from '../mail/mail.service';
import { checkPathVersion, findArtifactRow, parseNameRef } from './versioned-artifacts';

/**
 * Capability downloads (decisions §14):
 *
 * - `GET ORG/capabilities/{name}/{version}/files/{path…}`: the raw bytes of one
 *   published file (a multi-segment path), content type by extension.
 * - `GET ORG/capabilities/{name}/{version}/bundle`: `{download_url,
 *   expires_at, sha256, size_bytes}`. The URL is absolute (PUBLIC_URL's host),
 *   expires after DOWNLOAD_URL_TTL_SECONDS and is signed (serverMac: HMAC-SHA-256
 *   under the JWT secret), so the client fetches it without any
 *   credential; a tampered or expired one is 403 with the envelope.
 * - The bundle is a tar.gz of the version's published files, built while it
 *   is sent: files read from PostgreSQL a few at a time, in path order, into
 *   the archive stream, compressed as it goes, with backpressure. Entries
 *   carry fixed metadata (mode 0644, mtime 0), so the same files make the same
 *   bytes: `sha256` and `size_bytes` are those of the archive served.
 */

const WHAT = 'Capability';
const DOWNLOAD_URL_TTL_SECONDS = 15 * 60;
const FILES_PER_READ = 16;

interface CapabilityRow {
  id: string;
  name: string;
  version: string;
  owner: string;
}

async function readableCapability(ctx: AppContext, org: string, name: string, version: string): Promise<CapabilityRow> {
  checkPathVersion(version);
  const scope = await resolveOrg(ctx, org);
  return findArtifactRow<CapabilityRow>('capabilities', 'a.id, a.name, a.version, o.key AS owner', scope, parseNameRef(scope, name, WHAT), version, WHAT);
}

/** The archive of a capability version's files, produced as it is read. */
export function bundleStream(capabilityId: string): Readable {
  const pack = tar.pack();
  const gzip = zlib.createGzip({ level: 6 });
  const out = new PassThrough();
  pack.pipe(gzip).pipe(out);
  const fail = (error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error)));
  gzip.on('error', fail);
  (async () => {
    let after = '';
    for (;;) {
      const files = await plainQuery<{ path: string; content: Buffer }>(
        `SELECT path, content FROM capability_files WHERE capability_id = $id AND path > $after ORDER BY path LIMIT ${FILES_PER_READ}`,
        { id: capabilityId, after },
        { prepare: 'capability-bundle-files' },
      );
      for (const file of files) {
        await new Promise<void>((resolve, reject) => pack.entry({ name: file.path, size: file.content.length, mode: 0o644, mtime: new Date(0) }, file.content, (error) => (error ? reject(error) : resolve())));
      }
      if (files.length < FILES_PER_READ) break;
      after = files[files.length - 1].path;
      // Wait while the compressed side is full: the archive never runs ahead of the download.
      if (out.writableNeedDrain) await new Promise((resolve) => out.once('drain', resolve));
    }
    pack.finalize();
  })().catch(fail);
  return out;
}

/** SHA-256 and size of the archive, by producing it once through a hash (nothing kept). */
async function bundleDigest(capabilityId: string): Promise<{ sha256: string; size_bytes: number }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  for await (const chunk of bundleStream(capabilityId)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size_bytes: size };
}

const signature = (kind: string, id: string, expires: number) => serverMac('download-urls', `${kind}\n${id}\n${expires}`);

/** An absolute, expiring, signed URL this service serves for `kind`/`id`. */
export function signedDownloadUrl(kind: string, id: string, now = Date.now()): { url: string; expires_at: Date } {
  const expires = Math.floor(now / 1000) + DOWNLOAD_URL_TTL_SECONDS;
  const query = new URLSearchParams({ id, expires: String(expires), signature: signature(kind, id, expires) });
  return { url: publicLink(`/api/v1/downloads/${kind}?${query.toString()}`), expires_at: new Date(expires * 1000) };
}

/** The id a signed download URL names, or 403 for a tampered, malformed or expired one. */
export function verifyDownload(kind: string, query: URLSearchParams): string {
  const id = query.get('id') ?? '';
  const expires = Number(query.get('expires'));
  const given = Buffer.from(query.get('signature') ?? '');
  const expected = Buffer.from(signature(kind, id, expires));
  if (!id || !Number.isInteger(expires) || given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw new ForbiddenError('The download link is not valid');
  }
  if (expires * 1000 < Date.now()) throw new ForbiddenError('The download link has expired; ask for a new one');
  return id;
}

export interface CapabilityBundleLink {
  download_url: string;
  expires_at: Date;
  sha256: string;
  size_bytes: number;
}

export async function capabilityBundle(ctx: AppContext, org: string, name: string, version: string): Promise<CapabilityBundleLink> {
  const capability = await readableCapability(ctx, org, name, version);
  const { url, expires_at } = signedDownloadUrl('capability-bundle', capability.id);
  return { download_url: url, expires_at, ...(await bundleDigest(capability.id)) };
}

/** `GET /api/v1/downloads/capability-bundle?…`: the signed archive, no credential. */
export const capabilityBundleDownload: BodyRoute = {
  method: 'GET',
  path: '/downloads/capability-bundle',
  label: 'capability_bundle_download',
  openapi: {
    operationId: 'getCapabilityBundleArchive',
    summary: 'The tar.gz of a capability version, by the signed URL its bundle route gave (no credential).',
    tags: ['catalogs'],
    security: [],
    responses: {
      '200': { description: 'The archive', content: { 'application/gzip': { schema: { type: 'string', contentMediaType: 'application/gzip' } } } },
    },
  },
  async handle({ req, replyStream }) {
    const id = verifyDownload('capability-bundle', new URL(req.url ?? '/', 'http://localhost').searchParams);
    const [capability] = await plainQuery<{ name: string; version: string }>('SELECT name, version FROM capabilities WHERE id = $id', { id });
    if (!capability) throw new NotFoundError(WHAT);
    await replyStream(200, 'application/gzip', { 'Content-Disposition': `attachment; filename="${capability.name}-${capability.version}.tar.gz"`, 'Cache-Control': 'private, no-store' }, bundleStream(id));
  },
};

/** The bundle route with the name not URL-encoded (`owner/name` as two segments), as one SDK call sends it. */
export const capabilityBundleOwnerPath: BodyRoute = {
  method: 'GET',
  path: '/org/:org/capabilities/:owner/:name/:version/bundle',
  label: 'capability_bundle',
  openapi: {
    operationId: 'getCapabilityBundleOfOwner',
    summary: "The bundle route with another organization's public capability named `owner/name` without encoding the slash.",
    tags: ['catalogs'],
    responses: { '200': { description: 'Successful response', content: { 'application/json': { schema: { $ref: '#/components/schemas/CapabilityBundleResponse' } } } } },
  },
  async handle({ params, context, reply }) {
    const ctx = await context({ org: params.org, workspace: null });
    const link = await capabilityBundle(ctx, params.org, `${params.owner}/${params.name}`, params.version);
    reply(200, JSON.stringify(link), 'application/json; charset=utf-8');
  },
};

/** `GET ORG/capabilities/{name}/{version}/files/{path…}`: one published file's bytes. */
export const capabilityFileDownload: BodyRoute = {
  method: 'GET',
  path: '/org/:org/capabilities/:name/:version/files/*',
  label: 'capability_file',
  openapi: {
    operationId: 'getCapabilityFile',
    summary: 'The raw bytes of one published file of a capability version (a path of any depth).',
    tags: ['catalogs'],
    responses: { '200': { description: "The file's bytes, typed by its extension", content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } } },
  },
  async handle({ params, context, reply }) {
    const ctx = await context({ org: params.org, workspace: null });
    const capability = await readableCapability(ctx, params.org, params.name, params.version);
    let filePath: string;
    try {
      filePath = params['*'].split('/').map((segment) => decodeURIComponent(segment)).join('/');
    } catch {
      throw new NotFoundError('Capability file');
    }
    if (filePath.includes('\0')) throw new NotFoundError('Capability file');
    const [file] = await plainQuery<{ content: Buffer }>('SELECT content FROM capability_files WHERE capability_id = $id AND path = $path', { id: capability.id, path: filePath });
    if (!file) throw new NotFoundError('Capability file');
    reply(200, file.content, mime.lookup(filePath) || 'application/octet-stream', { 'Content-Disposition': `inline; filename="${filePath.split('/').pop()!.replace(/"/g, '')}"` });
  },
};

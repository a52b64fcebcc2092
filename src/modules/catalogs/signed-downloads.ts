import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { ForbiddenError, NotFoundError } from '../../core/errors';
import type { BodyRoute, BodyRouteCall } from '../../core/module';
import { isUuid } from '../../core/scalars';
import { plainQuery } from '../../db/hot';
import { serverMac } from '../../core/secrets';
import { publicLink } from '../mail/mail.service';

/**
 * What every catalog download shares (decisions §14): links and archives.
 *
 * - A link is absolute (PUBLIC_URL's host), expires after
 *   DOWNLOAD_URL_TTL_SECONDS and is signed (serverMac: HMAC-SHA-256 over the
 *   kind, the id and the expiry, under the JWT secret), so the client fetches
 *   it from `GET /api/v1/downloads/{kind}` without any credential; a
 *   tampered, malformed or expired one is 403 with the envelope. The kind
 *   names the route, the id (linkId) what it serves and to which
 *   organization: a capability version; a dataset version and split; a
 *   dataset file. A signed id of another shape is 404.
 * - An archive is a tar.gz of some published files, built while it is sent:
 *   files read from PostgreSQL a few at a time, in path order, into the tar
 *   stream, compressed as it goes, with backpressure. Entries carry fixed
 *   metadata (mode 0644, mtime 0), so the same files make the same bytes.
 * - A file larger than INLINE_FILE_BYTES, in an archive or alone, is read in
 *   slices of FILE_SLICE_BYTES (`substring` of its bytea) as the download
 *   takes them: read whole, a 37 MB file held about 360 MB of the worker
 *   (its hex text, parsed, and the reply) for each download at once.
 */

const DOWNLOAD_URL_TTL_SECONDS = 15 * 60;
const FILES_PER_READ = 16;
/** Files up to this size are read whole (in an archive, FILES_PER_READ at a time); larger ones in slices. */
const INLINE_FILE_BYTES = 1024 * 1024;
const FILE_SLICE_BYTES = 4 * 1024 * 1024;
/** A file's size, and its bytes when it is read whole (null when it is read in slices). */
const SIZE_AND_INLINE_CONTENT = `octet_length(f.content) AS size, CASE WHEN octet_length(f.content) <= ${INLINE_FILE_BYTES} THEN f.content END AS content`;

/** The headers of every signed download: made for one holder of the link, never kept by a cache. */
export const DOWNLOAD_CACHE_HEADERS = { 'Cache-Control': 'private, no-store' } as const;

const signature = (kind: string, id: string, expires: number) => serverMac('download-urls', `${kind}\n${id}\n${expires}`);

/** An absolute, expiring, signed URL this service serves for `kind`/`id`. */
export function signedDownloadUrl(kind: string, id: string, now = Date.now()): { url: string; expires_at: Date } {
  const expires = Math.floor(now / 1000) + DOWNLOAD_URL_TTL_SECONDS;
  const query = new URLSearchParams({ id, expires: String(expires), signature: signature(kind, id, expires) });
  return { url: publicLink(`/api/v1/downloads/${kind}?${query.toString()}`), expires_at: new Date(expires * 1000) };
}

/** The id a signed download URL names, or 403 for a tampered, malformed or expired one. */
function verifyDownload(kind: string, query: URLSearchParams): string {
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

/**
 * A link's signed id: `<artifact id>/<organization id>[/<part>]` (a split, a
 * path), the organization being the one the link was given to. Served, the
 * artifact must still be readable by it (READABLE), so a version made
 * private since is served to its own organization only.
 */
export interface LinkId {
  artifact_id: string;
  org_id: string;
  part: string | null;
}
export const linkId = (link: LinkId) => `${link.artifact_id}/${link.org_id}${link.part === null ? '' : `/${link.part}`}`;

/** The parts of a signed download request (`GET /api/v1/downloads/{kind}?id&expires&signature`): 403 unless signed, 404 when the id is not a link id. */
function verifiedRequest(kind: string, query: URLSearchParams): LinkId {
  const id = verifyDownload(kind, query);
  const [artifactId, orgId, ...part] = id.split('/');
  if (!isUuid(artifactId) || !isUuid(orgId)) throw new NotFoundError('Download');
  return { artifact_id: artifactId, org_id: orgId, part: part.length ? part.join('/') : null };
}

/** What a signed download route serves: its operation, and the reply for a link whose signature held. */
export interface SignedDownload {
  label: string;
  operationId: string;
  summary: string;
  /** The 200 reply of the OpenAPI operation. */
  response: Record<string, unknown>;
  serve(link: LinkId, call: BodyRouteCall): Promise<void>;
}

/**
 * `GET /api/v1/downloads/{kind}?id&expires&signature`: the route serving the
 * links `signedDownloadUrl(kind, …)` gives, with no credential (the
 * signature is one); `serve` sees only a link whose signature held.
 */
export function signedDownloadRoute(kind: string, download: SignedDownload): BodyRoute {
  return {
    method: 'GET',
    path: `/downloads/${kind}`,
    label: download.label,
    openapi: { operationId: download.operationId, summary: download.summary, tags: ['catalogs'], security: [], responses: { '200': download.response } },
    handle: (call) => download.serve(verifiedRequest(kind, call.url.searchParams), call),
  };
}

/** The 200 of an archive download in the OpenAPI document. */
export const ARCHIVE_RESPONSE = { description: 'The archive', content: { 'application/gzip': { schema: { type: 'string', contentMediaType: 'application/gzip' } } } };

/** Sends `files` as the tar.gz attachment `filename`, built while it downloads. */
export function replyArchive(call: BodyRouteCall, filename: string, files: StoredFiles): Promise<void> {
  return call.replyStream(200, 'application/gzip', { 'Content-Disposition': contentDisposition('attachment', filename), ...DOWNLOAD_CACHE_HEADERS }, archiveStream(files));
}

/**
 * `Content-Disposition` for a file name of any characters: an ASCII fallback
 * and the exact name as RFC 5987 `filename*` (a header value may not carry
 * characters beyond Latin-1, and a quote or backslash would end the value).
 */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/**
 * Which published files an archive holds, or which one file a download
 * sends: the rows of `table` (alias `f`, with `path`, `content` and
 * `sha256`) that `where` selects, with its `bind`. `statement` names the
 * prepared statement: one name per `where`.
 */
export interface StoredFiles {
  table: 'capability_files' | 'dataset_files';
  where: string;
  bind: Record<string, unknown>;
  statement: string;
}

/**
 * One published file as the reply of a GET (`file` selects one row): one
 * up to INLINE_FILE_BYTES as any reply (compressed when the client accepts
 * it, tagged by its bytes); a larger one as it is read, slice by slice, with
 * its length and its SHA-256 as entity tag. False when there is no such file.
 */
export async function replyFile(call: BodyRouteCall, file: StoredFiles, contentType: string, headers: Record<string, string>): Promise<boolean> {
  const [row] = await plainQuery<{ size: number; sha256: string; content: Buffer | null }>(
    `SELECT f.sha256, ${SIZE_AND_INLINE_CONTENT} FROM ${file.table} f WHERE ${file.where}`,
    file.bind,
    { prepare: file.statement },
  );
  if (!row) return false;
  if (row.content) call.reply(200, row.content, contentType, headers);
  else await call.replyStream(200, contentType, { ...headers, 'Content-Length': String(row.size), ETag: `"sha256-${row.sha256}"` }, Readable.from(fileSlices(file, row.size, null)));
  return true;
}

/**
 * The bytes of a file of `size` bytes (`path`: which of `files`, or null
 * when they select one), a slice at a time as they are taken. A file gone
 * before its last slice (its version deleted) fails the stream, which cuts
 * the reply.
 */
async function* fileSlices(files: StoredFiles, size: number, path: string | null): AsyncGenerator<Buffer> {
  const sql = `SELECT substring(f.content FROM $from FOR ${FILE_SLICE_BYTES}) AS slice FROM ${files.table} f WHERE ${files.where}${path === null ? '' : ' AND f.path = $path'}`;
  for (let from = 0; from < size; from += FILE_SLICE_BYTES) {
    const bind = { ...files.bind, from: from + 1, ...(path === null ? {} : { path }) };
    const [row] = await plainQuery<{ slice: Buffer }>(sql, bind, { prepare: `${files.statement}-slice` });
    if (!row) throw new Error('the file was deleted while it was read');
    yield row.slice;
  }
}

/** The tar.gz of `files` in path order, produced as it is read. */
function archiveStream(files: StoredFiles): Readable {
  const pack = tar.pack();
  const gzip = zlib.createGzip({ level: 6 });
  const out = new PassThrough();
  pack.pipe(gzip).pipe(out);
  const fail = (error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error)));
  gzip.on('error', fail);
  const sql = `SELECT f.path, ${SIZE_AND_INLINE_CONTENT} FROM ${files.table} f WHERE ${files.where} AND f.path > $after ORDER BY f.path LIMIT ${FILES_PER_READ}`;
  // Wait while the compressed side is full: the archive never runs ahead of the download.
  const drained = () => (out.writableNeedDrain ? new Promise((resolve) => out.once('drain', resolve)) : null);
  (async () => {
    let after = '';
    for (;;) {
      const rows = await plainQuery<{ path: string; size: number; content: Buffer | null }>(sql, { ...files.bind, after }, { prepare: files.statement });
      for (const file of rows) {
        const header = { name: file.path, size: file.size, mode: 0o644, mtime: new Date(0) };
        let entry!: ReturnType<typeof pack.entry>;
        const written = new Promise<void>((resolve, reject) => {
          const done = (error?: Error | null) => (error ? reject(error) : resolve());
          entry = file.content ? pack.entry(header, file.content, done) : pack.entry(header, done);
        });
        // A slice that fails ends the archive (below); the entry it leaves unfinished is not waited for.
        written.catch(() => undefined);
        if (!file.content) {
          for await (const slice of fileSlices(files, file.size, file.path)) {
            if (!entry.write(slice)) await new Promise((resolve) => entry.once('drain', resolve));
            await drained();
          }
          entry.end();
        }
        await written;
      }
      if (rows.length < FILES_PER_READ) break;
      after = rows[rows.length - 1].path;
      await drained();
    }
    pack.finalize();
  })().catch(fail);
  return out;
}

/** SHA-256 and size of an archive, by producing it once through a hash (nothing kept). */
export async function archiveDigest(files: StoredFiles): Promise<{ sha256: string; size_bytes: number }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  for await (const chunk of archiveStream(files)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size_bytes: size };
}

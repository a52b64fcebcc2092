import mime from 'mime-types';
import { requireViewer, type AppContext } from '../../core/context';
import { NotFoundError } from '../../core/errors';
import type { BodyRoute } from '../../core/module';
import { resolveOrg } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { ARCHIVE_RESPONSE, archiveDigest, contentDisposition, linkId, replyArchive, replyFile, signedDownloadRoute, signedDownloadUrl, type StoredFiles } from './signed-downloads';
import { checkPathVersion, findArtifactRow, parseNameRef, READABLE } from './versioned-artifacts';

/**
 * Capability downloads (decisions §14):
 *
 * - `GET ORG/capabilities/{name}/{version}/files/{path…}`: the raw bytes of one
 *   published file (a multi-segment path), content type by extension.
 * - `GET ORG/capabilities/{name}/{version}/bundle`: `{download_url,
 *   expires_at, sha256, size_bytes}`: a signed link (signed-downloads.ts) of
 *   the tar.gz of the version's published files, the archive every catalog
 *   download builds. The same files make the same bytes, so `sha256` and
 *   `size_bytes` are those of the archive served.
 */

const WHAT = 'Capability';

interface CapabilityRow {
  id: string;
  name: string;
  version: string;
  owner: string;
}

async function readableCapability(ctx: AppContext, org: string, name: string, version: string): Promise<CapabilityRow & { reader_org_id: string }> {
  // The order of every route: the credential (401), then the version (422), then the lookups (404).
  requireViewer(ctx);
  checkPathVersion(version);
  const scope = await resolveOrg(ctx, org);
  const row = await findArtifactRow<CapabilityRow>('capabilities', 'a.id, a.name, a.version, o.key AS owner', scope, parseNameRef(scope, name, WHAT), version, WHAT);
  return { ...row, reader_org_id: scope.org.id };
}

/** The files of a capability version's bundle. */
const bundleFiles = (capabilityId: string): StoredFiles => ({
  table: 'capability_files',
  where: 'f.capability_id = $id',
  bind: { id: capabilityId },
  statement: 'capability-bundle-files',
});

export interface CapabilityBundleLink {
  download_url: string;
  expires_at: Date;
  sha256: string;
  size_bytes: number;
}

/** The kind of a bundle's signed links (`GET /api/v1/downloads/capability-bundle`). */
const BUNDLE = 'capability-bundle';

export async function capabilityBundle(ctx: AppContext, org: string, name: string, version: string): Promise<CapabilityBundleLink> {
  const capability = await readableCapability(ctx, org, name, version);
  const { url, expires_at } = signedDownloadUrl(BUNDLE, linkId({ artifact_id: capability.id, org_id: capability.reader_org_id, part: null }));
  return { download_url: url, expires_at, ...(await bundleDigest(capability.id)) };
}

/**
 * The digests of bundles this process made, by capability id: a version's
 * files never change once published, so its archive is made once (requests
 * for it at the same time share that), not for every link asked for. Kept in
 * the process, not the row: the archive's bytes are this process's gzip's,
 * which another Node version may make differently. At most BUNDLE_DIGESTS,
 * the one asked for least recently forgotten first.
 */
const bundleDigests = new Map<string, Promise<{ sha256: string; size_bytes: number }>>();
const BUNDLE_DIGESTS = 1000;

function bundleDigest(capabilityId: string): Promise<{ sha256: string; size_bytes: number }> {
  let digest = bundleDigests.get(capabilityId);
  if (digest) {
    // Asked again: now the most recent, forgotten last.
    bundleDigests.delete(capabilityId);
  } else {
    const made = archiveDigest(bundleFiles(capabilityId));
    // A failure is not kept: the next request tries again.
    made.catch(() => bundleDigests.get(capabilityId) === made && bundleDigests.delete(capabilityId));
    digest = made;
  }
  bundleDigests.set(capabilityId, digest);
  if (bundleDigests.size > BUNDLE_DIGESTS) bundleDigests.delete(bundleDigests.keys().next().value!);
  return digest;
}

/** `GET /api/v1/downloads/capability-bundle?…`: the signed archive, no credential. */
export const capabilityBundleDownload = signedDownloadRoute(BUNDLE, {
  label: 'capability_bundle_download',
  operationId: 'getCapabilityBundleArchive',
  summary: 'The tar.gz of a capability version, by the signed URL its bundle route gave (no credential).',
  response: ARCHIVE_RESPONSE,
  async serve({ artifact_id: id, org_id }, call) {
    const [capability] = await plainQuery<{ name: string; version: string }>(`SELECT a.name, a.version FROM capabilities a WHERE a.id = $id AND ${READABLE}`, { id, org_id }, { prepare: 'capability-bundle-version' });
    if (!capability) throw new NotFoundError(WHAT);
    await replyArchive(call, `${capability.name}-${capability.version}.tar.gz`, bundleFiles(id));
  },
});

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

/** What a published file may do when a browser renders it: nothing (an opaque origin, no script, no subresource). */
const FILE_POLICY = "sandbox; default-src 'none'";

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
  async handle(call) {
    const { params, context } = call;
    const ctx = await context({ org: params.org, workspace: null });
    const capability = await readableCapability(ctx, params.org, params.name, params.version);
    let filePath: string;
    try {
      filePath = params['*'].split('/').map((segment) => decodeURIComponent(segment)).join('/');
    } catch {
      throw new NotFoundError('Capability file');
    }
    if (filePath.includes('\0')) throw new NotFoundError('Capability file');
    const file: StoredFiles = { table: 'capability_files', where: 'f.capability_id = $id AND f.path = $path', bind: { id: capability.id, path: filePath }, statement: 'capability-file' };
    // Typed by its extension and shown inline (a dashboard shows a README), but a published .html or .svg runs nothing on
    // this origin if a browser opens it: sandboxed, no script, no request.
    const sent = await replyFile(call, file, mime.lookup(filePath) || 'application/octet-stream', {
      'Content-Disposition': contentDisposition('inline', filePath.split('/').pop()!),
      'Content-Security-Policy': FILE_POLICY,
    });
    if (!sent) throw new NotFoundError('Capability file');
  },
};

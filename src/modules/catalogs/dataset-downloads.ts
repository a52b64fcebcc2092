import mime from 'mime-types';
import type { AppContext } from '../../core/context';
import { AppError, NotFoundError, ValidationError, type ValidationItem } from '../../core/errors';
import { resolveOrg } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import type { DatasetDownloadRequest } from './catalogs.inputs';
import { DEFAULT_DATASET_FORMAT } from './dataset-format';
import type { DatasetDownloadResponse } from './catalogs.types';
import { recordDatasetActivity } from './dataset-activity';
import { ARCHIVE_RESPONSE, contentDisposition, DOWNLOAD_CACHE_HEADERS, linkId, replyArchive, replyFile, signedDownloadRoute, signedDownloadUrl, type StoredFiles } from './signed-downloads';
import { checkPathVersion, findArtifactRow, parseNameRef, READABLE } from './versioned-artifacts';

/**
 * Dataset downloads (decisions §14): `POST ORG/datasets/{name}/{version}/download`
 * {format, split} → `{download_url, expires_at, format, files}`.
 *
 * - Who: any member of the route's organization (readers too, and an API key
 *   limited to one workspace: a download reads the catalogue, as the
 *   capability bundle does), for the organization's own versions or another
 *   organization's public ones (`owner/name`).
 * - `download_url` is a signed link (signed-downloads.ts) of the tar.gz of the
 *   selected files (kind `dataset-archive`), each file's a signed link of
 *   its bytes (kind `dataset-file`); ids: signed-downloads.ts linkId (the
 *   part is the split or the path); all expire together.
 * - `format` is `raw` or the dataset's own format: the files are stored and
 *   served as published (in the dataset's format), so both select the same
 *   bytes; the choice is echoed and recorded.
 * - Recorded in one transaction: a `download` entry in the route
 *   organization's activity, and the version's `download_count` + 1 (one
 *   UPDATE, so concurrent downloads each count).
 */

const WHAT = 'Dataset';
const ARCHIVE = 'dataset-archive';
const FILE = 'dataset-file';

/** A version published without files (metadata only): nothing to download. */
class NoPublishedFilesError extends AppError {
  constructor(name: string, version: string) {
    super(404, 'not_found_error', `Dataset '${name}' version ${version} has no published files to download (it was published as metadata only)`);
  }
}

interface DownloadableRow {
  id: string;
  name: string;
  version: string;
  owner: string;
  format: string;
}

interface FileRow {
  path: string;
  split: string | null;
  size_bytes: number;
  sha256: string;
}

/** The files of a dataset version's archive: all of them, or one split's. */
function archiveFiles(datasetId: string, split: string | null): StoredFiles {
  return split === null
    ? { table: 'dataset_files', where: 'f.dataset_id = $id', bind: { id: datasetId }, statement: 'dataset-archive-files' }
    : { table: 'dataset_files', where: 'f.dataset_id = $id AND f.split = $split', bind: { id: datasetId, split }, statement: 'dataset-archive-split-files' };
}

export async function downloadDataset(ctx: AppContext, orgKey: string, name: string, version: string, input: DatasetDownloadRequest | null): Promise<DatasetDownloadResponse> {
  checkPathVersion(version);
  const scope = await resolveOrg(ctx, orgKey);
  const ref = parseNameRef(scope, name, WHAT);
  const dataset = await findArtifactRow<DownloadableRow>('datasets', `a.id, a.name, a.version, o.key AS owner, coalesce(a.format, '${DEFAULT_DATASET_FORMAT}') AS format`, scope, ref, version, WHAT);
  const published = await plainQuery<FileRow>(
    'SELECT f.path, f.split, f.size_bytes, f.sha256 FROM dataset_files f WHERE f.dataset_id = $id ORDER BY f.path',
    { id: dataset.id },
    { prepare: 'dataset-download-files' },
  );
  if (!published.length) throw new NoPublishedFilesError(`${dataset.owner}/${dataset.name}`, dataset.version);

  // What can only be judged against the version found: its format and its splits (every problem at once).
  const format = input?.format ?? 'raw';
  const split = input?.split ?? null;
  const errors: ValidationItem[] = [];
  if (format !== 'raw' && format !== dataset.format) {
    errors.push({ loc: ['input', 'format'], msg: `Input should be 'raw' or '${dataset.format}' (the dataset's format)`, type: 'enum' });
  }
  const splits = [...new Set(published.flatMap((file) => (file.split === null ? [] : [file.split])))].sort();
  if (split !== null && !splits.includes(split)) {
    const known = splits.length ? `one of the version's splits: ${splits.join(', ')}` : 'absent: the version has no splits';
    errors.push({ loc: ['input', 'split'], msg: `split must be ${known}`, type: 'enum' });
  }
  if (errors.length) throw new ValidationError(errors);

  await database().transaction(async (transaction) => {
    // Readable still: a version deleted or made private since the look-up is not counted.
    const counted = await plainQuery(
      `UPDATE datasets a SET download_count = a.download_count + 1 WHERE a.id = $id AND ${READABLE} RETURNING a.id`,
      { id: dataset.id, org_id: scope.org.id },
      { transaction },
    );
    if (!counted.length) throw new NotFoundError(WHAT);
    await recordDatasetActivity(
      scope,
      { dataset_id: dataset.id, dataset_owner: dataset.owner, dataset_name: dataset.name, version: dataset.version, action: 'download', format },
      transaction,
    );
  });

  const now = Date.now();
  const archive = signedDownloadUrl(ARCHIVE, linkId({ artifact_id: dataset.id, org_id: scope.org.id, part: split }), now);
  const files = (split === null ? published : published.filter((file) => file.split === split)).map((file) => ({
    ...file,
    download_url: signedDownloadUrl(FILE, linkId({ artifact_id: dataset.id, org_id: scope.org.id, part: file.path }), now).url,
  }));
  return { download_url: archive.url, expires_at: archive.expires_at, format, files };
}

/** `GET /api/v1/downloads/dataset-archive?…`: the signed tar.gz of a version's files (or one split's), no credential. */
export const datasetArchiveDownload = signedDownloadRoute(ARCHIVE, {
  label: 'dataset_archive_download',
  operationId: 'getDatasetArchive',
  summary: "The tar.gz of a dataset version's files (or one split's), by the signed URL its download route gave (no credential).",
  response: ARCHIVE_RESPONSE,
  async serve({ artifact_id: id, org_id, part: split }, call) {
    const [dataset] = await plainQuery<{ name: string; version: string }>(`SELECT a.name, a.version FROM datasets a WHERE a.id = $id AND ${READABLE}`, { id, org_id }, { prepare: 'dataset-archive-version' });
    if (!dataset) throw new NotFoundError(WHAT);
    await replyArchive(call, `${dataset.name}-${dataset.version}${split === null ? '' : `-${split}`}.tar.gz`, archiveFiles(id, split));
  },
});

/** `GET /api/v1/downloads/dataset-file?…`: the signed raw bytes of one file of a version, no credential. */
export const datasetFileDownload = signedDownloadRoute(FILE, {
  label: 'dataset_file_download',
  operationId: 'getDatasetFile',
  summary: 'The raw bytes of one file of a dataset version, by the signed URL its download route gave (no credential).',
  response: { description: "The file's bytes, typed by its extension", content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
  async serve({ artifact_id: id, org_id, part: path }, call) {
    if (path === null) throw new NotFoundError('Dataset file');
    const file: StoredFiles = {
      table: 'dataset_files',
      where: `f.dataset_id = $id AND f.path = $path AND EXISTS (SELECT 1 FROM datasets a WHERE a.id = f.dataset_id AND ${READABLE})`,
      bind: { id, path, org_id },
      statement: 'dataset-file-content',
    };
    const headers = { 'Content-Disposition': contentDisposition('attachment', path.split('/').pop()!), ...DOWNLOAD_CACHE_HEADERS };
    if (!(await replyFile(call, file, mime.lookup(path) || 'application/octet-stream', headers))) throw new NotFoundError('Dataset file');
  },
});

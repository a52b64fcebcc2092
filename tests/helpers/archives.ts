import zlib from 'node:zlib';
import tar from 'tar-stream';

/** The files of a tar.gz, by path, as UTF-8 text. */
export async function untar(archive: Buffer): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        files[header.name] = Buffer.concat(chunks).toString('utf8');
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(zlib.gunzipSync(archive));
  await done;
  return files;
}

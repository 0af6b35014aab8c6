/**
 * GET/HEAD /v1/downloads/files/sha256-<hex>/<name>.<ext>: one dataset file of the current publication (or of the one
 * `?publication=` pins, as the manifest's URLs do), as its bytes.
 *
 * Only a file that publication lists is served (a superseded or unknown hash is a 404 naming the index), so
 * nothing half-written is ever sent. The URL names the content, hence a strong ETag (`"sha256-<hex>"`) and
 * `Cache-Control: public, max-age=31536000, immutable` (the lease's rule for this route, http/paths.ts); ranges follow
 * RFC 9110 (byte-range.ts), so a cut download resumes. The file is opened while the request holds its lease: a
 * publication that replaces it after that cannot take it away (an open descriptor outlives the file's removal), so
 * the snapshot is released when the handler returns, and the bytes stream from the descriptor with back-pressure,
 * never read whole into memory.
 */
import type { Context } from 'hono';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { datasetFileName, DOWNLOAD_FILE_TYPE, DOWNLOAD_FORMATS, DOWNLOAD_NAME_SUFFIXES, plainFilesDir, type DownloadFormat } from '../../../schemas/publication-files.js';
import { ApiError } from '../errors.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import { fileKey, readPublicationFiles } from '../exec/downloads.js';
import { PATHS, PIN_PARAM } from '../http/paths.js';
import { byteRange } from './byte-range.js';
import { readableFileName } from './download-links.js';
import type { DownloadsDeps } from './downloads.js';

const FORMAT_LIST = DOWNLOAD_FORMATS.map((f) => `.${DOWNLOAD_NAME_SUFFIXES[f]} (${EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[f]].mediaType})`).join(', ');

export function datasetFileHandler(deps: DownloadsDeps) {
  return async function datasetFile(c: Context): Promise<Response> {
    const name = c.req.param('name') ?? '';
    const hash = /^sha256-([0-9a-f]{64})$/.exec(c.req.param('hash') ?? '')?.[1];
    const formats = formatsOf(name);
    const lease = c.get('lease');
    const byFile = hash ? (await readPublicationFiles(lease.snapshot)).byFile : undefined;
    // The first format the name may mean whose file the publication lists under this hash.
    const listed = hash ? formats.map((f) => byFile?.get(fileKey(hash, f))).find((l) => l !== undefined) : undefined;
    if (!listed) {
      throw new ApiError('not_found', `No file at ${c.req.path} in ${c.req.query(PIN_PARAM) ? `publication ${lease.publication}` : 'the current publication'}: it is unknown or was replaced by a newer one. ${PATHS.downloads} lists every file served now, with its URL.`);
    }
    const format = listed.file.format;
    const etag = `"sha256-${listed.file.sha256}"`;
    const unchanged = lease.notModified(etag);
    if (unchanged) return unchanged;
    const handle = await open(join(deps.filesDir ?? plainFilesDir(lease.snapshot.path), datasetFileName(listed.file.sha256, format))).catch((err: NodeJS.ErrnoException) => {
      // An older publication's file that ingest has since removed (its retention passed): that publication is gone.
      if (err.code === 'ENOENT' && lease.publication) throw fileGone(c.req.path, lease.publication);
      throw err;
    });
    const { file, dataset } = listed;
    const size = await handle.stat().then((st) => st.size, async (err: unknown) => (await handle.close(), Promise.reject(err)));
    if (size !== file.bytes) {
      await handle.close();
      throw new Error(`${datasetFileName(file.sha256, format)} has ${size} bytes; the publication lists ${file.bytes}`);
    }
    const headers: Record<string, string> = {
      'Content-Type': EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[format]].contentType,
      'Content-Disposition': `attachment; filename="${readableFileName(dataset.doi, format)}"`,
      'Accept-Ranges': 'bytes',
    };
    const range = c.req.method === 'GET' ? byteRange(c.req.header('range'), c.req.header('if-range'), etag, size) : { kind: 'full' as const };
    if (range.kind === 'unsatisfiable') {
      await handle.close();
      throw new ApiError(
        'range_not_satisfiable',
        `Range: ${(c.req.header('range') ?? '').slice(0, 60)} asks for bytes past the end of the file (${size} bytes): ask for a range that starts below ${size}, or for the whole file without Range.`,
        {},
        { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
      );
    }
    if (c.req.method === 'HEAD') {
      await handle.close();
      return c.body(null, 200, { ...headers, 'Content-Length': String(size) });
    }
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, size - 1];
    if (range.kind === 'partial') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    headers['Content-Length'] = String(end - start + 1);
    if (size === 0) {
      await handle.close();
      return c.body(null, 200, headers);
    }
    const body = Readable.toWeb(handle.createReadStream({ start, end })) as ReadableStream<Uint8Array>;
    return c.body(body, range.kind === 'partial' ? 206 : 200, headers);
  };
}

function fileGone(path: string, publication: string): ApiError {
  return new ApiError(
    'publication_gone',
    `${path} of publication ${publication} is no longer kept (PUBLICATION_RETENTION_MS passed since a newer publication replaced it). ${PATHS.downloads} lists every file served now, with its URL.`,
  );
}

/**
 * The formats the name's ending may ask for, the longest ending first (`x.comparisons.parquet` is a comparisons file,
 * unless the hash is a Records file's: a DOI may end in `.comparisons`); none is answered with the list of formats.
 */
function formatsOf(name: string): DownloadFormat[] {
  const lower = name.toLowerCase();
  const formats = DOWNLOAD_FORMATS.filter((f) => lower.endsWith(`.${DOWNLOAD_NAME_SUFFIXES[f]}`)).sort((a, b) => DOWNLOAD_NAME_SUFFIXES[b].length - DOWNLOAD_NAME_SUFFIXES[a].length);
  if (formats.length > 0) return formats;
  throw new ApiError('not_acceptable', `${name.slice(0, 80)} names no format files are served in. Formats: ${FORMAT_LIST}; ${PATHS.downloads} lists each dataset's file URLs.`);
}

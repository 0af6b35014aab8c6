/**
 * The URLs of the bulk downloads (issue 29; their paths are http/paths.ts's). A file's URL names its content's hash, so it names one
 * content forever and can be cached as immutable; the last segment is a readable name so that `curl -O` and
 * browsers save a sensible file (Content-Disposition says the same).
 *
 *   /v1/downloads                                     the index: every dataset with its files
 *   /v1/downloads/manifest.json                       every current Parquet file, to read the hub as one table
 *   /v1/downloads/files/sha256-<hex>/<name>.<ext>     one file (`?publication=<id>`: as that publication lists it)
 *   /v1/publications[?since=<id>]                     the change feed
 */
import { DOWNLOAD_FILE_TYPE, DOWNLOAD_NAME_SUFFIXES, type DatasetFile, type DownloadFormat } from '../../../schemas/publication-files.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import type { DownloadDataset } from '../exec/downloads.js';
import { encodeValue } from '../http/links.js';
import { PATHS, PIN_PARAM } from '../http/paths.js';

/**
 * `10.25976/abc-1.parquet` → `10.25976_abc-1.parquet` (its comparisons: `10.25976_abc-1.comparisons.parquet`): only
 * characters every file system and header keeps.
 */
export function readableFileName(doi: string, format: DownloadFormat): string {
  return `${doi.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '')}.${DOWNLOAD_NAME_SUFFIXES[format]}`;
}

/** The file's path on this server, relative to its origin. */
export function filePath(dataset: Pick<DownloadDataset, 'doi'>, file: Pick<DatasetFile, 'sha256' | 'format'>): string {
  return `${PATHS.files}/sha256-${file.sha256}/${readableFileName(dataset.doi, file.format)}`;
}

/**
 * The file's URL as a document of publication `publication` links it: pinned to it, so an engine reading the
 * manifest's files while a newer publication replaces some of them still reads this one's (a file's content never
 * changes; which files are served is the publication's).
 */
export function fileUrl(base: string, dataset: Pick<DownloadDataset, 'doi'>, file: Pick<DatasetFile, 'sha256' | 'format'>, publication: string): string {
  return `${base}${filePath(dataset, file)}${publication ? `?${PIN_PARAM}=${encodeValue(publication)}` : ''}`;
}

/** What a file entry of the index and the feed says about one file. */
export function fileEntry(base: string, dataset: Pick<DownloadDataset, 'doi'>, file: DatasetFile, publication: string) {
  return { url: fileUrl(base, dataset, file, publication), mediaType: EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[file.format]].mediaType, bytes: file.bytes, rows: file.rows, sha256: file.sha256, publication: file.publication };
}

/**
 * The bulk downloads of the current publication (issue 29): the index (`/v1/downloads`), the Parquet manifest
 * (`/v1/downloads/manifest.json`), the files themselves (dataset-file.ts) and the change feed (`/v1/publications`).
 * Every answer comes from what the published file lists (exec/downloads.ts), so a file ingest has not finished is
 * neither listed nor served. The JSON documents are a function of the publication: its weak ETag, revalidated
 * with If-None-Match, as pages are. Keys, CORS and rate limits are middleware/access.ts's, as for every /v1 route.
 */
import type { Context } from 'hono';
import { BBOX_COLUMN, GEOMETRY_COLUMN, GEOPARQUET_VERSION } from '../../../schemas/geoparquet.js';
import { DOWNLOAD_FORMATS } from '../../../schemas/publication-files.js';
import { ApiError } from '../errors.js';
import { readPublicationFiles, type DownloadDataset, type PublicationFiles } from '../exec/downloads.js';
import { JSON_TYPE } from '../formats.js';
import type { Mount } from '../http/mount.js';
import { PATHS } from '../http/paths.js';
import type { RouteName } from '../http/route-table.js';
import { datasetFileHandler } from './dataset-file.js';
import { fileEntry, filePath, fileUrl } from './download-links.js';

export interface DownloadsDeps {
  /** Where the dataset files are; by default `<published file>.files` (schemas/publication-files.ts). */
  readonly filesDir?: string | undefined;
}

export function registerDownloads(mount: Mount, deps: DownloadsDeps): void {
  const json = (build: (base: string, listing: PublicationFiles, publication: string, c: Context) => unknown) => async (c: Context): Promise<Response> => {
    const { snapshot, publication } = c.get('lease');
    const listing = await readPublicationFiles(snapshot);
    return c.body(JSON.stringify(build(c.get('base'), listing, publication ?? '', c)), 200, { 'Content-Type': JSON_TYPE });
  };

  const routes: [RouteName, (c: Context) => Promise<Response>][] = [
    ['downloads', json(downloadIndex)],
    ['manifest', json(parquetManifest)],
    ['publications', json(publicationFeed)],
    ['file', datasetFileHandler(deps)],
  ];
  for (const [route, handler] of routes) mount(route, handler);
}

function datasetEntry(base: string, d: DownloadDataset, publication: string) {
  // In DOWNLOAD_FORMATS order: the Records' files, then the comparisons'.
  const files = Object.fromEntries(
    DOWNLOAD_FORMATS.flatMap((format) => {
      const f = d.files[format];
      return f ? [[format, fileEntry(base, d, f, publication)] as const] : [];
    }),
  );
  return { DOI: d.doi, DatasetName: d.name, Licence: d.licence, Citation: d.citation, Rows: d.rows, files };
}

function downloadIndex(base: string, listing: PublicationFiles, publication: string) {
  const current = listing.history.find((p) => p.id === publication);
  return {
    publication,
    ...(current ? { createdAt: current.createdAt } : {}),
    manifest: `${base}${PATHS.manifest}`,
    publications: `${base}${PATHS.publications}`,
    catalogue: `${base}${PATHS.catalogue}`,
    sitemap: `${base}${PATHS.sitemap}`,
    datasets: listing.datasets.map((d) => datasetEntry(base, d, publication)),
  };
}

/**
 * What makes the files GeoParquet (schemas/geoparquet.ts), so a GIS client knows before it downloads one that it
 * opens as a point layer: the same in every file's `geo` metadata except each file's own bbox.
 */
const GEOPARQUET = { version: GEOPARQUET_VERSION, primaryColumn: GEOMETRY_COLUMN, encoding: 'WKB', geometryTypes: ['Point'], crs: 'OGC:CRS84', covering: BBOX_COLUMN } as const;

/** Each dataset's file of one format, with its URL pinned to the publication. */
function manifestFiles(base: string, listing: PublicationFiles, publication: string, format: 'parquet' | 'comparisons-parquet') {
  return listing.datasets.flatMap((d) => {
    const f = d.files[format];
    return f ? [{ DOI: d.doi, path: filePath(d, f), url: fileUrl(base, d, f, publication), object: `sha256-${f.sha256}.parquet`, bytes: f.bytes, rows: f.rows, sha256: f.sha256 }] : [];
  });
}

const readParquet = (files: readonly { readonly url: string }[]) => `SELECT * FROM read_parquet([${files.map((f) => `'${f.url.replaceAll("'", "''")}'`).join(', ')}])`;

/**
 * Every current Parquet file: the hub as one table for any engine that reads a list of Parquet files; the guideline
 * comparisons' files (another table) beside them under `comparisons`.
 */
function parquetManifest(base: string, listing: PublicationFiles, publication: string) {
  const files = manifestFiles(base, listing, publication, 'parquet');
  const comparisons = manifestFiles(base, listing, publication, 'comparisons-parquet');
  return {
    publication,
    format: 'parquet',
    geoparquet: GEOPARQUET,
    rows: files.reduce((n, f) => n + f.rows, 0),
    bytes: files.reduce((n, f) => n + f.bytes, 0),
    files,
    // Ready to paste: DuckDB reads http(s) URLs with its httpfs extension (loaded on first use).
    duckdb: readParquet(files),
    comparisons: {
      rows: comparisons.reduce((n, f) => n + f.rows, 0),
      bytes: comparisons.reduce((n, f) => n + f.bytes, 0),
      files: comparisons,
      duckdb: readParquet(comparisons),
    },
  };
}

function publicationFeed(base: string, listing: PublicationFiles, publication: string, c: Context) {
  const since = c.req.query('since');
  let from = 0;
  if (since !== undefined) {
    const i = listing.history.findIndex((p) => p.id === since);
    if (i < 0) {
      throw new ApiError(
        'unknown_publication',
        `since=${since.slice(0, 80)} names no publication of this hub's history. GET ${PATHS.publications} (without since) lists every publication id; since= takes one of them and answers what changed after it.`,
        { parameter: 'since' },
      );
    }
    from = i + 1;
  }
  const current = new Map(listing.datasets.map((d) => [d.doi, d]));
  return {
    publication,
    ...(since !== undefined ? { since } : {}),
    downloads: `${base}${PATHS.downloads}`,
    publications: listing.history.slice(from).map((p) => ({
      id: p.id,
      createdAt: p.createdAt,
      parent: p.parent,
      changes: p.changes.map((ch) => {
        const d = current.get(ch.doi);
        // The files a change wrote are linked while they are still the ones served; a later change supersedes them.
        const files = ch.change !== 'removed' && d ? Object.values(d.files).filter((f) => f.publication === p.id) : [];
        return { DOI: ch.doi, DatasetName: ch.name, change: ch.change, ...(files.length ? { files: Object.fromEntries(files.map((f) => [f.format, fileEntry(base, d!, f, publication)])) } : {}) };
      }),
    })),
  };
}

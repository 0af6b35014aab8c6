/**
 * The bulk files of a publication (issue 29): every dataset's Records as Parquet and as CSV, and its guideline
 * comparisons (issue 45) as Parquet, written by ingest beside the published DuckDB file and served by the API. This file is the contract between the two; the published
 * file itself says which files belong to it, so nothing half-written is ever listed.
 *
 * In the published DuckDB file (tables declared in storage.ts, STORAGE_SCHEMA_VERSION 10):
 *   dataset_files         one row per dataset and format: the file this publication serves for it
 *                         (DOI VARCHAR, Format VARCHAR ∈ DOWNLOAD_FORMATS, Sha256 VARCHAR (hex), Bytes BIGINT,
 *                          Rows BIGINT, PublicationId VARCHAR: the publication that wrote the file)
 *   publication_history   one row per publication this file descends from, itself included
 *                         (PublicationId VARCHAR, CreatedAt TIMESTAMP (UTC), Parent VARCHAR NULL)
 *   publication_changes   per publication, each dataset it added, replaced or removed
 *                         (PublicationId VARCHAR, DOI VARCHAR, DatasetName VARCHAR, Change VARCHAR ∈ CHANGE_KINDS)
 *
 * On disk, files are content-addressed (`sha256-<hex>.<ext>`) so that an unchanged dataset keeps its file across
 * publications and a URL naming the hash names one content forever:
 *   plain DUCKDB_PATH:   <DUCKDB_PATH>.files/sha256-<hex>.parquet|csv
 *   PUBLICATION_STORE:   <store>/objects/sha256-<hex>.parquet|csv   (listed in the publication's manifest)
 * (a comparisons file is a `.parquet` too: its content, hence its hash, is its own).
 */
import { join } from 'node:path';

/**
 * `parquet` and `csv`: the dataset's Records (what `/v1/export/Records?$filter=DOI eq '…'` writes);
 * `comparisons-parquet`: its GuidelineComparisons (what `/v1/export/GuidelineComparisons?$filter=DOI eq '…'` writes
 * as Parquet), another table, so it is listed beside the Records files rather than in the manifest's one table.
 */
export const DOWNLOAD_FORMATS = ['parquet', 'csv', 'comparisons-parquet'] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

/** The file type of each format: its media type (the export's) and its extension on disk. */
export const DOWNLOAD_FILE_TYPE: Readonly<Record<DownloadFormat, 'parquet' | 'csv'>> = { parquet: 'parquet', csv: 'csv', 'comparisons-parquet': 'parquet' };

/** One row of dataset_files: the file a publication serves for one dataset in one format. */
export interface DatasetFile {
  readonly DOI: string;
  readonly format: DownloadFormat;
  /** Hex; the file's name is `sha256-<hex>.<ext>` (datasetFileName). */
  readonly sha256: string;
  readonly bytes: number;
  readonly rows: number;
  /** The publication that wrote the file (an unchanged dataset keeps its file across publications). */
  readonly publication: string;
}

/** The extension of the content-addressed file (`sha256-<hex>.<ext>`): its file type's. */
export const DOWNLOAD_EXTENSIONS: Readonly<Record<DownloadFormat, string>> = { parquet: 'parquet', csv: 'csv', 'comparisons-parquet': 'parquet' };

/**
 * The end of a file's readable name in its URL (`<doi>.<suffix>`), which says its format: two formats share the
 * `.parquet` extension, so the comparisons' name says what they are.
 */
export const DOWNLOAD_NAME_SUFFIXES: Readonly<Record<DownloadFormat, string>> = { parquet: 'parquet', csv: 'csv', 'comparisons-parquet': 'comparisons.parquet' };

export const CHANGE_KINDS = ['added', 'replaced', 'removed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** `sha256-<hex>.parquet`: the name of a dataset file, in the files folder and the store's objects alike. */
export function datasetFileName(sha256: string, format: DownloadFormat): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a SHA-256 in hex: ${sha256}`);
  return `sha256-${sha256}.${DOWNLOAD_EXTENSIONS[format]}`;
}

/** The folder beside a plain published file that holds its dataset files. */
export function plainFilesDir(duckdbPath: string): string {
  return `${duckdbPath}.files`;
}

/** The folder of a publication store that holds its dataset files (with its other objects). */
export function storeFilesDir(store: string): string {
  return join(store, 'objects');
}

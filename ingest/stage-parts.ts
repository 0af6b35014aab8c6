import type { DuckDBConnection } from '@duckdb/node-api';
import type { DatasetMetadata, ValidationLevel } from '../schemas/metadata-schema.js';
import type { DatasetFile } from '../schemas/publication-files.js';
import type { Build, Copy } from './build-file.js';
import type { ColumnMap } from './column-map.js';
import type { MetaValues } from './meta-rows.js';
import type { Previous } from './previous.js';
import type { PublicationRecord } from './publication-history.js';
import type { Region } from './regions.js';
import type { DatasetReport, Findings, Reject, TrendsReport, Warning } from './report.js';
import type { IngestMemory } from './settings.js';

export type { DerivePart, GuidelinesPart } from './report.js';

/**
 * What the stages of pipeline.ts hand each other: the build context every stage after read takes, and each stage's
 * part of the report. They live here, beside the orchestrator, so that stages stand side by side: a stage imports
 * these types, never another stage (scripts/docs/architecture.test.ts pins it).
 */

export interface Log {
  /** Always shown: per-dataset summaries, the total, warnings. */
  info(line: string): void;
  /** Progress while it runs (main shows it on a TTY only). */
  progress?(line: string): void;
}

// ---- read ----

export interface SourceFile {
  readonly path: string;
  /** Name as reported (relative to the dataset folder). */
  readonly name: string;
  readonly columns: ColumnMap;
}

export interface SourceDataset {
  readonly folder: string;
  readonly metadata: DatasetMetadata & { readonly Id: string; readonly ValidationLevel: ValidationLevel };
  /** Readable files (header mapped); files rejected as a whole are in `found`. */
  readonly files: readonly SourceFile[];
  readonly contentHash: string;
  /** What its files' headers say: files rejected whole, unknown and unserved columns. */
  readonly found: Findings;
}

export interface ReadResult {
  readonly datasets: readonly SourceDataset[];
  /** Folders that cannot be ingested (bad metadata, no data files, duplicate DOI): their final reports. */
  readonly failed: readonly DatasetReport[];
}

/** The read stage's part: the sources, and REGIONS_FILE's regions when there is a source (the boundaries are derive's). */
export interface ReadPart extends ReadResult {
  readonly regions: readonly Region[];
}

// ---- open ----

/**
 * The build context: one value handed to every stage after read (load, derive, statistics, guidelines, trends, files, publish),
 * instead of each taking the file, the published state, the settings and the log as parameters of its own.
 */
export interface IngestBuild {
  /** The file being written: the whole new file, or with a publication in place the delta merged into it. */
  readonly file: Build;
  readonly conn: DuckDBConnection;
  /** What is published: the numbering starts after its high-water marks; unchanged datasets are not built. */
  readonly previous: Previous;
  /** REGIONS_FILE's regions; derive adds world-geojson's boundaries the build's locations can lie in. */
  readonly regions: readonly Region[];
  readonly maxRejects: number;
  /** Each dataset's rejects file: `<dir>/<folder>.csv`, with valid rows' warnings when `warnings`. */
  readonly rejects: { readonly dir: string; readonly warnings: boolean };
  readonly memory: IngestMemory;
  readonly log: Log;
  /** How long dataset files no publication lists stay (PUBLICATION_RETENTION_MS). */
  readonly retentionMs: number;
  /** The published file's copy for the merge, made while the delta is built (build-file.ts). */
  readonly copy?: Copy;
}

// ---- load ----

/** A dataset's new rows: the Id range planned for them. */
export interface NewRows {
  readonly DOI: string;
  readonly from: number;
  readonly to: number;
}

/** One new or changed dataset's part of the report. */
export interface DatasetLoad {
  readonly ds: SourceDataset;
  readonly status: 'loaded' | 'failed';
  readonly rowsRead: number;
  readonly rowsLoaded: number;
  readonly rowsRejected: number;
  /** Every reject of the dataset, the read's included (they share the cap on stored rejects). */
  readonly rejects: readonly Reject[];
  /** What the load found: upstream's counted quality-control rules, conflicting locations. */
  readonly warnings: readonly Warning[];
  /** Why it was not loaded (status 'failed'); its published version, if any, is kept. */
  readonly error?: string;
  /** The rejects file written for it (every reject, every reason), when it has rejects (or warnings asked for). */
  readonly rejectsFile?: string;
}

/** A dataset loaded: its planned Id range. */
export type LoadedDataset = NewRows & { readonly ds: SourceDataset };

/** The load's part: each dataset's outcome, in DOI order, and the new high-water marks. */
export interface LoadPart {
  readonly datasets: readonly DatasetLoad[];
  /** The datasets loaded, in Id order; a failed one is not among them. */
  readonly loaded: readonly LoadedDataset[];
  readonly maxObservationId: number;
  readonly maxLocationId: number;
}

// ---- statistics, files, publish ----

/** The statistics stage's part: what tributary_meta says of the new publication. */
export interface StatisticsPart {
  readonly meta: MetaValues;
}

/** The trends stage's part: the report's `trends`. */
export type TrendsPart = TrendsReport;

export interface FilesPart {
  readonly written: readonly DatasetFile[];
  readonly publication: Omit<PublicationRecord, 'id'>;
  /** The files a plain-mode collection keeps after the publish: the new publication's and the replaced one's. */
  readonly keep: ReadonlySet<string>;
}

/** The publish stage's part. */
export interface PublishPart {
  readonly published: true;
  /** tributary_meta.publication_id of the file now at DUCKDB_PATH. */
  readonly publication: string;
}

/**
 * The JSON report of one ingest, remove or compact: `{"datasets":[{DOI, rowsRead, rowsLoaded, rowsRejected,
 * rejects}]}`. Each stage returns its part (read.ts: the folders and what their headers say; load.ts: each new or
 * changed dataset's counts, rejects and warnings; publish: the publication); pipeline.ts puts them together.
 */

export interface Reject {
  readonly file: string;
  readonly line: number;
  /** The column at fault; null when the whole record is (malformed CSV, unreadable file). */
  readonly column: string | null;
  readonly reason: string;
}

export interface Warning {
  readonly file?: string;
  readonly line?: number;
  /** The upstream quality-control rule, for a counted warning (docs/upstream-rules.md). */
  readonly rule?: string;
  /** Valid rows of `file` that fail `rule`. */
  readonly rows?: number;
  readonly message: string;
}

export type DatasetStatus = 'loaded' | 'unchanged' | 'failed' | 'removed';

export interface DatasetReport {
  DOI: string | null;
  /** Folder under SRC, when the dataset came from one. */
  folder?: string;
  status: DatasetStatus;
  rowsRead: number;
  rowsLoaded: number;
  rowsRejected: number;
  rejects: Reject[];
  warnings: Warning[];
  /** Why the dataset could not be published (status 'failed'). */
  error?: string;
  /** Its rejects file: every rejected row with every reason (the `rejects` above are a sample). */
  rejectsFile?: string;
}

export interface Report {
  published: boolean;
  /** Why nothing was published. */
  error?: string;
  durationMs: number;
  rowsPerSecond: number;
  /** The publication id written (tributary_meta.publication_id), when something was published. */
  publication?: string;
  /** Wall time per stage: read, open, load, derive, statistics, guidelines, trends, files, publish. */
  timingsMs?: Record<string, number>;
  /** CPU time per stage (the process's, DuckDB's threads included): the figure to compare on a loaded machine. */
  cpuMs?: Record<string, number>;
  /** Peak RSS per stage in MB (the process's, DuckDB included; ingest/stage-memory.ts): which stage holds the memory. */
  peakRssMB?: Record<string, number>;
  /** What the derive stage found, when it ran. */
  derive?: DerivePart;
  /** What the guidelines stage wrote, when it ran. */
  guidelines?: GuidelinesPart;
  /** What the trends stage (or a removal's merge) computed, and whether it was every series or the changed ones. */
  trends?: TrendsReport;
  datasets: DatasetReport[];
}

// The parts of the stages that report more than their datasets' counts: declared here, where the report is shaped,
// and handed between the stages through stage-parts.ts.

/** The derive stage's part: how many region memberships of the build's locations it found. */
export interface DerivePart {
  readonly memberships: number;
}

/**
 * The guidelines stage's part: rows written to guidelines, guideline_comparisons and water_quality_index, and the
 * build's quality-control results set aside (compared with nothing, no input, not in the index).
 */
export interface GuidelinesPart {
  readonly guidelines: number;
  readonly comparisons: number;
  readonly indexRows: number;
  readonly qualityControlSetAside: number;
}

/** The trends' part of a report (docs/trends.md, "What a publish costs"). */
export interface TrendsReport {
  /** The EndYear the periods end at; null when the hub has no usable observation and TRENDS_END_YEAR is unset. */
  readonly endYear: number | null;
  /** TRENDS_PERIODS, in canonical order. */
  readonly periods: string;
  /** `all`: every series of the hub; `changed`: only the series of the datasets added or replaced (none for a removal). */
  readonly recomputed: 'all' | 'changed';
  /** Why every series was recomputed: a new file, the end year moved, the periods changed. */
  readonly reason?: string;
  /** Series computed and rows written by this publish. */
  readonly series: number;
  readonly rows: number;
}

export const DEFAULT_MAX_REJECTS = 1000;

/** Rejects and warnings found about a dataset before any of its rows is judged (read.ts: its files' headers). */
export interface Findings {
  readonly rejects: readonly Reject[];
  readonly warnings: readonly Warning[];
}

export function datasetReport(DOI: string | null, folder: string | undefined, status: DatasetStatus, found: Findings = { rejects: [], warnings: [] }): DatasetReport {
  return { DOI, folder, status, rowsRead: 0, rowsLoaded: 0, rowsRejected: 0, rejects: [...found.rejects], warnings: [...found.warnings] };
}

/** A dataset that could not be published, with why. */
export function failedReport(DOI: string | null, folder: string | undefined, error: string, found?: Findings): DatasetReport {
  return { ...datasetReport(DOI, folder, 'failed', found), error };
}

/** Stores a reject unless `rejects` holds `max` already; counts are kept by the caller, exactly. */
export function pushReject(rejects: Reject[], reject: Reject, max: number): void {
  if (rejects.length < max) rejects.push(reject);
}

/** The report's totals: duration and rows per second over every dataset read. */
export function finish(report: Omit<Report, 'durationMs' | 'rowsPerSecond'>, started: number): Report {
  const durationMs = Math.round(performance.now() - started);
  const rows = report.datasets.reduce((n, d) => n + d.rowsRead, 0);
  return { published: report.published, ...(report.error ? { error: report.error } : {}), durationMs, rowsPerSecond: Math.round(rows / Math.max(durationMs / 1000, 1e-3)), datasets: report.datasets };
}

/** The JSON report of one ingest or remove: `{"datasets":[{DOI, rowsRead, rowsLoaded, rowsRejected, rejects}]}`. */

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

export type DatasetStatus = 'loaded' | 'unchanged' | 'kept' | 'failed' | 'removed';

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
}

export interface Report {
  published: boolean;
  /** Why nothing was published. */
  error?: string;
  durationMs: number;
  rowsPerSecond: number;
  /** The publication id written (tributary_meta.publication_id), when something was published. */
  publication?: string;
  /** Wall time per phase: read, open, load, derive, statistics, publish (+ validate on the staged path). */
  timingsMs?: Record<string, number>;
  datasets: DatasetReport[];
}

export const DEFAULT_MAX_REJECTS = 1000;

export function datasetReport(DOI: string | null, folder?: string): DatasetReport {
  return { DOI, folder, status: 'loaded', rowsRead: 0, rowsLoaded: 0, rowsRejected: 0, rejects: [], warnings: [] };
}

/** Stores a reject unless the dataset already holds `max` of them; counts are kept by the caller, exactly. */
export function pushReject(report: DatasetReport, reject: Reject, max: number): void {
  if (report.rejects.length < max) report.rejects.push(reject);
}

export function failDataset(report: DatasetReport, error: string): DatasetReport {
  report.status = 'failed';
  report.error = error;
  return report;
}

/** The report's totals: duration and rows per second over every dataset read. */
export function finish(report: Omit<Report, 'durationMs' | 'rowsPerSecond'>, started: number): Report {
  const durationMs = Math.round(performance.now() - started);
  const rows = report.datasets.reduce((n, d) => n + d.rowsRead, 0);
  return { published: report.published, ...(report.error ? { error: report.error } : {}), durationMs, rowsPerSecond: Math.round(rows / Math.max(durationMs / 1000, 1e-3)), datasets: report.datasets };
}

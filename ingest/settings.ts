/**
 * Settings of the ingest job (`make ingest`, `make remove`, `make compact`), read once from the environment by
 * main.ts. Declared as one table, like the API's (services/api/config.ts), so docs/configuration.md's list and the
 * validation cannot drift apart: each entry is the variable, its default and what it does.
 */
import { z } from 'zod';
import { parseSettings, type SettingsOf } from '../schemas/settings.js';
import { DEFAULT_PERIODS, parsePeriods, type TrendSettings } from './trends/trend-periods.js';

const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 2 ** 10, MIB: 2 ** 20, GIB: 2 ** 30, TIB: 2 ** 40 };

/** Bytes of a DuckDB size such as `8GB`, `512MiB` or `1.5 GB`; undefined when it is not one. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?I?B)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toUpperCase()] : undefined;
  return m && unit ? Math.floor(Number(m[1]) * unit) : undefined;
}

/** Below this DuckDB cannot sort a batch of any use; refused rather than left to fail mid-build. */
const MIN_MEMORY = 2 ** 27;
const size = z.string().transform((text, ctx) => {
  const bytes = parseSize(text);
  if (bytes === undefined || bytes < MIN_MEMORY) {
    ctx.addIssue({ code: 'custom', message: `must be a size of at least 128MiB such as 8GB or 512MiB, got '${text}'` });
    return z.NEVER;
  }
  return bytes;
});
/** A JavaScript regular expression the whole value must match (anchored here), compiled once. */
const wholePattern = z.string().transform((text, ctx) => {
  try {
    return new RegExp(`^(?:${text})$`, 'u');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `must be a JavaScript regular expression: ${(err as Error).message}` });
    return z.NEVER;
  }
});
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const periods = z.string().transform((text, ctx) => {
  try {
    return parsePeriods(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

export const ingestSettings = {
  SRC: { schema: z.string().min(1).optional(), default: undefined, doc: 'Folder of dataset folders (`make ingest` passes `$(OUT)` unless set); required by `ingest`.' },
  DUCKDB_PATH: { schema: z.string().min(1), default: 'data/tributary.duckdb', doc: 'The published file (with PUBLICATION_STORE: the working file it is built in).' },
  PUBLICATION_STORE: { schema: z.string().min(1).optional(), default: undefined, doc: 'Also publish the result into this publication store, which the API replicas serve from.' },
  PUBLICATION_RETENTION_MS: { schema: z.coerce.number({ error: 'must be a whole number of milliseconds' }).int('must be a whole number of milliseconds').min(0, 'must be a whole number of milliseconds'), default: String(60 * 60 * 1000), doc: "How long a replaced publication's store objects (or, beside a plain DUCKDB_PATH, its dataset files) are kept after a newer one is published, so that pinned next links can finish; the three newest publications are always kept. Set it as the API's." },
  REGIONS_FILE: { schema: z.string().min(1).optional(), default: undefined, doc: 'GeoJSON FeatureCollections of Polygon/MultiPolygon features with properties.RegionId: one file, or several files and folders of them separated by commas.' },
  REPORT: { schema: z.string().min(1).optional(), default: undefined, doc: 'Path of the JSON report.' },
  REPORT_MAX_REJECTS: { schema: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be a whole number'), default: '1000', doc: 'Rejects stored per dataset in the report (counts stay exact).' },
  DOI_PATTERN: { schema: wholePattern.optional(), default: undefined, doc: "A regular expression every dataset's whole DOI must match, on top of the DOI syntax; unset: any DOI." },
  REJECTS_DIR: { schema: z.string().min(1).optional(), default: undefined, doc: 'Folder of the rejects files, one `<dataset folder>.csv` per dataset with rejects (default `<DUCKDB_PATH>.rejects`).' },
  REJECTS_WARNINGS: { schema: flag, default: '0', doc: "Also write a line per valid row that fails an upstream quality-control rule into the dataset's rejects file." },
  INGEST_MEMORY_LIMIT: { schema: size.optional(), default: undefined, doc: "DuckDB's memory_limit for the build (default 512MiB, whatever the hub's size: peak RSS is two to three times it); batches of new datasets are a quarter of it. More sorts larger batches in memory, a little faster; less spills sooner." },
  INGEST_TRACE: { schema: flag, default: '0', doc: 'Print the wall and CPU time of every SQL statement.' },
  INGEST_LOCK_TIMEOUT_MS: { schema: z.coerce.number({ error: 'must be a whole number of milliseconds' }).int('must be a whole number of milliseconds').min(0, 'must be a whole number of milliseconds'), default: '600000', doc: 'How long a publish waits for another on the same DUCKDB_PATH or store before it exits 3 (0: tries once).' },
  TRENDS_END_YEAR: { schema: z.coerce.number({ error: 'must be a year such as 2024' }).int('must be a year such as 2024').min(1, 'must be a year such as 2024').max(9999, 'must be a year such as 2024').optional(), default: undefined, doc: "The last calendar year of every trend period (docs/trends.md); unset: the latest year of the hub's usable observations. A production hub sets it to the last complete year and changes it once a year: each change recomputes every series." },
  TRENDS_PERIODS: { schema: periods, default: DEFAULT_PERIODS, doc: 'The trend periods, comma-separated: a number N is the N calendar years ending at the end year; A-B the years A to B. A change recomputes every series.' },
  METRICS_TEXTFILE: { schema: z.string().regex(/\.prom$/, "must name a file ending in .prom (a node exporter's textfile collector reads only those)").optional(), default: undefined, doc: "Write each run's figures (rows read, loaded, rejected; stage times; success; publication) in Prometheus' text format to this file, for a node exporter's textfile collector (docs/deployment.md); replaced whole at each run." },
} as const;

export type IngestSettings = SettingsOf<typeof ingestSettings>;

/** Parses the settings from an environment; throws one error naming every bad variable. */
export function loadIngestSettings(env: Record<string, string | undefined> = process.env): IngestSettings {
  return parseSettings(ingestSettings, env);
}

export interface IngestMemory {
  /** DuckDB's `memory_limit` for the build, in bytes. */
  readonly limitBytes: number;
  /** Data-file bytes loaded per sorted batch (load.ts): a quarter of the limit. */
  readonly batchBytes: number;
}

/** INGEST_MEMORY_LIMIT's default: a fixed size, so that an ingest's memory follows a batch, not the hub or the machine. */
export const DEFAULT_INGEST_MEMORY_BYTES = 512 * 2 ** 20;

/**
 * The ingest's memory: INGEST_MEMORY_LIMIT, by default 512 MiB (issue 55). It was half the machine's RAM, and
 * DuckDB kept every stage's working set up to it, so peak memory grew with the hub (5.4 GB at 10M rows) while the
 * API and the OS cache of the published file share the machine. A batch's sort holds a small multiple of its CSV
 * bytes (docs/ingest.md, How it runs), so a quarter of the limit per batch; what does not fit (a dataset larger
 * than a batch, the comparisons' sort) DuckDB spills to `<build>.tmp`.
 */
export function ingestMemory(limitBytes?: number): IngestMemory {
  const limit = limitBytes ?? DEFAULT_INGEST_MEMORY_BYTES;
  return { limitBytes: limit, batchBytes: Math.floor(limit / 4) };
}

/** The trends' settings of a run (TRENDS_END_YEAR, TRENDS_PERIODS). */
export function trendSettings(settings: Pick<IngestSettings, 'TRENDS_END_YEAR' | 'TRENDS_PERIODS'>): TrendSettings {
  return { periods: settings.TRENDS_PERIODS, ...(settings.TRENDS_END_YEAR === undefined ? {} : { endYear: settings.TRENDS_END_YEAR }) };
}

/** The trends' settings when none are given (a test, a caller of runIngest): TRENDS_PERIODS' default, the hub's end year. */
export const defaultTrendSettings: TrendSettings = { periods: parsePeriods(DEFAULT_PERIODS) };

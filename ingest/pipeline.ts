import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { newPublicationId } from '../schemas/publication.js';
import { run } from './db.js';
import { deriveRegions } from './derive.js';
import { prepareLoad } from './load.js';
import { loadDirect, prepareDirect } from './load-direct.js';
import { publishChange, startCopy, type Copy } from './merge.js';
import { readPrevious, type Previous } from './previous.js';
import { abandonBuild, checkpointAndClose, openBuild, publishBuild, removeStaleBuilds, type Build } from './publish.js';
import { readSources } from './read.js';
import { ingestMemory, type IngestMemory } from './settings.js';
import { canadaRegions, loadRegionsFile, type Region } from './regions.js';
import { DEFAULT_MAX_REJECTS, datasetReport, failDataset, finish, type DatasetReport, type Report } from './report.js';
import { literal } from './sql.js';
import { addDataset, writeStatistics } from './statistics.js';
import { prepareValidation } from './validate.js';

/**
 * read → validate and load → derive → statistics → publish; each stage is its own file. With a publication in
 * place, stages 2–5 build the new and changed datasets alone (a delta) and stage 6 merges it into a copy of the
 * published file (merge.ts); the first ingest and `compact` build the whole file.
 */

export interface Log {
  /** Always shown: per-dataset summaries, the total, warnings. */
  info(line: string): void;
  /** Progress while it runs (main shows it on a TTY only). */
  progress?(line: string): void;
}

export interface IngestOptions {
  readonly src: string;
  readonly duckdbPath: string;
  readonly regionsFile?: string;
  /** Stored rejects per dataset (counts stay exact). */
  readonly maxRejects?: number;
  readonly log?: Log;
  /** DuckDB's memory_limit for the build and the merge (INGEST_MEMORY_LIMIT; default half the RAM). */
  readonly memoryLimitBytes?: number;
  /** Estimated data-file bytes per sorted batch (default: a quarter of the memory limit). */
  readonly batchBytes?: number;
}

export interface RemoveOptions {
  readonly duckdbPath: string;
  readonly doi: string;
  readonly log?: Log;
  readonly memoryLimitBytes?: number;
}

export const INGEST_VERSION = '1';
const quiet: Log = { info: () => {} };

/** Adds or replaces the datasets under `src`, keeps every other published one, publishes atomically. */
export async function runIngest(options: IngestOptions): Promise<Report> {
  const started = performance.now();
  const log = options.log ?? quiet;
  const maxRejects = options.maxRejects ?? DEFAULT_MAX_REJECTS;
  const memory = ingestMemory(options.memoryLimitBytes);
  const sources = await readSources(options.src);
  const reports: DatasetReport[] = [...sources.failed];
  if (sources.datasets.length === 0) {
    const error = reports.length === 0 ? `no dataset folder (with metadata.json) under ${options.src}` : 'no dataset could be read';
    return finish({ published: false, error, datasets: reports }, started);
  }
  const timer = phaseTimer();
  const regions = [...(await canadaRegions()), ...(options.regionsFile ? await loadRegionsFile(options.regionsFile) : [])];
  timer.lap('read');
  const build = await openBuild(options.duckdbPath, { delta: true });
  const copy = build.delta ? startCopy(build.target) : undefined;
  try {
    const prev = await readPrevious(build.conn, build.hasPrevious);
    await prepareValidation(build.conn);
    await prepareLoad(build.conn, memory);
    timer.lap('open');
    const changed = sources.datasets.filter((ds) => prev.datasets.get(ds.metadata.DOI)?.contentHash !== ds.contentHash);
    for (const ds of sources.datasets) {
      if (!changed.includes(ds)) Object.assign(ds.report, { status: 'unchanged' });
      reports.push(ds.report);
    }
    await prepareDirect(build.conn);
    const outcome = await loadDirect(build.conn, changed, prev, { maxRejects, progress: log.progress, batchBytes: options.batchBytes ?? memory.batchBytes });
    // Nothing to publish when every dataset read was new or changed and none of them loaded.
    if (outcome.parts.length === 0 && changed.length === sources.datasets.length) {
      await abandonBuild(build);
      return finish({ published: false, error: 'no dataset has a valid row (see rejects)', datasets: reports }, started);
    }
    for (const p of outcome.parts) await addDataset(build.conn, p.ds, p);
    timer.lap('load');
    return await finishBuild(build, copy, outcome, outcome.parts.map((p) => p.DOI), regions, reports, started, timer, { ...options, memory }, log);
  } catch (err) {
    await abandonBuild(build);
    throw err;
  } finally {
    await copy?.discard();
  }
}

/**
 * Stages 4–6 once every observation is in; the caller abandons the build if this throws. `loaded`: the datasets
 * the build holds new versions of (a delta replaces their published rows).
 */
async function finishBuild(
  build: Build,
  copy: Copy | undefined,
  maxima: { readonly maxObservationId: number; readonly maxLocationId: number },
  loaded: readonly string[],
  regions: readonly Region[],
  reports: DatasetReport[],
  started: number,
  timer: ReturnType<typeof phaseTimer>,
  options: IngestOptions & { readonly memory: IngestMemory },
  log: Log,
): Promise<Report> {
  await deriveRegions(build.conn, regions);
  timer.lap('derive');
  const meta = { ingestVersion: INGEST_VERSION, maxObservationId: maxima.maxObservationId, maxLocationId: maxima.maxLocationId, publicationId: newPublicationId() };
  await writeStatistics(build.conn, meta, STORAGE_SCHEMA_VERSION);
  timer.lap('statistics');
  if (build.delta) {
    await checkpointAndClose(build);
    await publishChange(build.target, { drop: loaded, delta: build.path, meta }, { copy, memoryLimitBytes: options.memory.limitBytes });
    await abandonBuild(build);
  } else await publishBuild(build);
  timer.lap('publish');
  for (const d of reports) log.info(summaryLine(d));
  const report = { ...finish({ published: true, datasets: reports }, started), publication: meta.publicationId, timingsMs: timer.laps };
  log.info(`published ${options.duckdbPath}: ${reports.reduce((n, d) => n + d.rowsLoaded, 0)} rows loaded in ${(report.durationMs / 1000).toFixed(1)} s (${report.rowsPerSecond} rows/s)`);
  return report;
}

/** Wall time per phase, for the report and `make bench`. */
function phaseTimer() {
  let last = performance.now();
  const laps: Record<string, number> = {};
  return {
    laps,
    lap(name: string) {
      const now = performance.now();
      laps[name] = Math.round(now - last);
      last = now;
    },
  };
}

function summaryLine(d: DatasetReport): string {
  const name = d.DOI ?? d.folder ?? '(unknown)';
  if (d.status === 'failed') return `${name}: FAILED: ${d.error ?? ''}`;
  if (d.status === 'unchanged') return `${name}: unchanged, kept with its Ids`;
  const warn = d.warnings.length > 0 ? `, ${d.warnings.length} warning(s)` : '';
  return `${name}: ${d.rowsRead} read, ${d.rowsLoaded} loaded, ${d.rowsRejected} rejected${warn}`;
}

/** What is published at `path` (numbering, change detection), read through an in-memory instance. */
async function publishedAt(path: string): Promise<Previous | undefined> {
  if (!existsSync(path)) return undefined;
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await run(conn, `ATTACH ${literal(resolve(path))} AS prev (READ_ONLY)`);
    return await readPrevious(conn, true);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Publishes the current file without one dataset: a merge that only deletes (merge.ts). */
export async function runRemove(options: RemoveOptions): Promise<Report> {
  const started = performance.now();
  const report = Object.assign(datasetReport(options.doi), { status: 'removed' as const });
  const target = resolve(options.duckdbPath);
  await removeStaleBuilds(target);
  const prev = await publishedAt(target);
  if (!prev?.datasets.has(options.doi)) {
    const error = prev ? `DOI ${options.doi} is not published in ${options.duckdbPath}` : `${options.duckdbPath} does not exist`;
    return finish({ published: false, error, datasets: [failDataset(report, error)] }, started);
  }
  const publicationId = newPublicationId();
  await publishChange(target, { drop: [options.doi], meta: { ingestVersion: INGEST_VERSION, maxObservationId: prev.maxObservationId, maxLocationId: prev.maxLocationId, publicationId } }, { memoryLimitBytes: ingestMemory(options.memoryLimitBytes).limitBytes });
  options.log?.info(`removed ${options.doi}; published ${options.duckdbPath}`);
  return { ...finish({ published: true, datasets: [report] }, started), publication: publicationId };
}

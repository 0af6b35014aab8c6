import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { newPublicationId } from '../schemas/publication.js';
import { run, scalarNumber } from './db.js';
import { deriveRegions } from './derive.js';
import { insertNewObservations, loadDataset, prepareLoad, type NewRows } from './load.js';
import { loadDirect, prepareDirect } from './load-direct.js';
import { publishChange, startCopy, type Copy } from './merge.js';
import { readPrevious, type Previous } from './previous.js';
import { abandonBuild, checkpointAndClose, openBuild, publishBuild, removeStaleBuilds, type Build } from './publish.js';
import { readSources, type SourceDataset } from './read.js';
import { ingestMemory, type IngestMemory } from './settings.js';
import { canadaRegions, loadRegionsFile, type Region } from './regions.js';
import { DEFAULT_MAX_REJECTS, datasetReport, failDataset, finish, type DatasetReport, type Report } from './report.js';
import { literal } from './sql.js';
import { addDataset, writeStatistics } from './statistics.js';
import { prepareValidation, stageDataset, type Staged } from './validate.js';

/**
 * read → validate → load → derive → statistics → publish; each stage is its own file. With a publication in place,
 * stages 2–5 build the new and changed datasets alone (a delta) and stage 6 merges it into a copy of the published
 * file (merge.ts); the first ingest and `compact` build the whole file.
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
  /**
   * 'direct' (default): one statement reads, validates, sorts and writes the new rows (load-direct.ts), falling
   * back to 'staged' when it cannot; 'staged': every file is staged and validated first (validate.ts, load.ts).
   * Both publish identical files; tests run both.
   */
  readonly path?: 'direct' | 'staged';
  /** DuckDB's memory_limit for the build and the merge (INGEST_MEMORY_LIMIT; default half the RAM). */
  readonly memoryLimitBytes?: number;
  /** Direct path: estimated data-file bytes per sorted batch (default: a quarter of the memory limit). */
  readonly batchBytes?: number;
}

export interface RemoveOptions {
  readonly duckdbPath: string;
  readonly doi: string;
  readonly log?: Log;
  readonly memoryLimitBytes?: number;
}

export const INGEST_VERSION = '1';
const STAGING = 'staging';
const quiet: Log = { info: () => {} };


/** Adds or replaces the datasets under `src`, keeps every other published one, publishes atomically. */
export async function runIngest(options: IngestOptions): Promise<Report> {
  const result = await ingestOnce(options, options.path !== 'staged');
  if (!('fallback' in result)) return result;
  options.log?.progress?.(`validating file by file instead: ${result.fallback}`);
  return (await ingestOnce(options, false)) as Report;
}

async function ingestOnce(options: IngestOptions, direct: boolean): Promise<Report | { fallback: string }> {
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
    if (direct && changed.length > 0) {
      await prepareDirect(build.conn);
      const outcome = await loadDirect(build.conn, changed, prev, { maxRejects, progress: log.progress, batchBytes: options.batchBytes ?? memory.batchBytes });
      if (!outcome.loaded) {
        await abandonBuild(build);
        return { fallback: outcome.reason };
      }
      for (const p of outcome.parts) await addDataset(build.conn, p.ds, p);
      timer.lap('load');
      return await finishBuild(build, copy, outcome, outcome.parts.map((p) => p.DOI), regions, reports, started, timer, { ...options, memory }, log);
    }
    const staged = await stageAll(build, changed, maxRejects, log);
    timer.lap('validate');
    const loading = changed.filter((ds) => staged.has(ds));
    const replaced = new Set(loading.map((ds) => ds.metadata.DOI));
    if (loading.length === 0 && sources.datasets.every((ds) => changed.includes(ds))) {
      await abandonBuild(build);
      return finish({ published: false, error: 'no dataset has a valid row (see rejects)', datasets: reports }, started);
    }
    const maxima = await loadAll(build, loading, staged, prev, log);
    timer.lap('load');
    return await finishBuild(build, copy, maxima, [...replaced], regions, reports, started, timer, { ...options, memory }, log);
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

/**
 * Stages two datasets at a time, one per connection, with DuckDB on one thread per statement. A staging INSERT
 * on two threads cost more CPU than on one and no less wall (bow, 1.6M rows, machine loaded by other work: 5.6–6.2
 * vs 4.2–4.8 CPU-s, wall ≈ CPU both ways; the extra likely goes to keeping file order across threads). Two files on
 * two connections use both cores instead: 10M sample, validate 15.6–15.8 s instead of 20.5–22.0 s, output
 * identical. The stage tables live in the attached in-memory database `staging` so every connection sees them.
 */
async function stageAll(build: Build, datasets: readonly SourceDataset[], maxRejects: number, log: Log): Promise<Map<SourceDataset, Staged>> {
  const onFile = (file: string, rows: number, ms: number) =>
    log.progress?.(`${file}: ${rows} rows in ${(ms / 1000).toFixed(1)} s (${Math.round(rows / Math.max(ms / 1000, 1e-3))} rows/s)`);
  await run(build.conn, `ATTACH ':memory:' AS ${STAGING}`);
  const second = await build.connect();
  await prepareValidation(second);
  const threads = await scalarNumber(build.conn, "SELECT current_setting('threads')");
  await run(build.conn, 'SET threads = 1');
  const results: Staged[] = [];
  let next = 0;
  const worker = async (conn: DuckDBConnection) => {
    for (let i = next++; i < datasets.length; i = next++) {
      const ds = datasets[i] as SourceDataset;
      results[i] = await stageDataset(conn, ds, `stage_${i}`, { maxRejects, onFile, catalog: STAGING });
    }
  };
  // allSettled: a failed worker must not leave the other's statement running while the build is closed.
  const settled = await Promise.allSettled([worker(build.conn), worker(second)]);
  await run(build.conn, `SET threads = ${threads}`);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  const staged = new Map<SourceDataset, Staged>();
  for (const [i, ds] of datasets.entries()) {
    const s = results[i] as Staged;
    if (s.rowsValid === 0) {
      failDataset(ds.report, `no valid row in ${ds.folder}; ${ds.report.rowsRejected} rejected, ${ds.report.rejects.length > 0 ? 'see rejects' : 'no readable file'} (the published version, if any, is kept)`);
      await run(build.conn, `DROP TABLE ${s.table}`);
    } else staged.set(ds, s);
  }
  return staged;
}

async function loadAll(build: Build, datasets: readonly SourceDataset[], staged: Map<SourceDataset, Staged>, prev: Previous, log: Log) {
  let maxObservationId = prev.maxObservationId;
  let maxLocationId = prev.maxLocationId;
  const parts: (NewRows & { ds: SourceDataset })[] = [];
  // New and changed datasets are numbered after the current maxima, in DOI order.
  for (const ds of [...datasets].sort((a, b) => (a.metadata.DOI < b.metadata.DOI ? -1 : 1))) {
    const s = staged.get(ds);
    if (!s) continue;
    const t0 = performance.now();
    const loaded = await loadDataset(build.conn, ds, s, { observation: maxObservationId, location: maxLocationId });
    parts.push({ ds, DOI: ds.metadata.DOI, stage: s.table, from: maxObservationId + 1, to: loaded.maxObservationId });
    Object.assign(ds.report, { rowsLoaded: loaded.rowsLoaded, status: 'loaded' });
    ds.report.warnings.push(...loaded.warnings);
    maxObservationId = loaded.maxObservationId;
    maxLocationId = loaded.maxLocationId;
    log.progress?.(`${ds.metadata.DOI}: ${loaded.rowsLoaded} rows, ${loaded.locations} locations numbered in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const t0 = performance.now();
  const written = await insertNewObservations(build.conn, parts, prev.maxObservationId);
  for (const p of parts) {
    await addDataset(build.conn, p.ds, p);
    await run(build.conn, `DROP TABLE ${p.stage}`);
  }
  log.progress?.(`${written} observations sorted and written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { maxObservationId, maxLocationId };
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

import { doiKey } from '../schemas/metadata-schema.js';
import { plainFilesDir } from '../schemas/publication-files.js';
import { abandonBuild } from './build-file.js';
import { datasetFilesStage } from './dataset-files-stage.js';
import { datasetFilesIn, removeFilesSince } from './dataset-files.js';
import { derive } from './derive.js';
import { guidelinesStage } from './guidelines-stage.js';
import { openIngest, type IngestOptions } from './ingest-build.js';
import { load } from './load.js';
import { publishIngest } from './publish-ingest.js';
import { publicationOf } from './publish-store.js';
import { read } from './read.js';
import { datasetReport, failedReport, finish, type DatasetReport, type Report } from './report.js';
import type { DatasetLoad, LoadPart, PublishPart, ReadPart, SourceDataset } from './stage-parts.js';
import { defaultTrendSettings } from './settings.js';
import { peakRssMB, resetPeakRss } from './stage-memory.js';
import { statistics } from './statistics.js';
import { trendsLine, trendsStage } from './trends-stage.js';

export type { IngestOptions } from './ingest-build.js';
export type { Log } from './stage-parts.js';

/**
 * `make ingest`: read → load (validate and load, explaining rejects as a sub-step) → derive → statistics →
 * guidelines (guideline comparisons and the water quality index, guidelines-stage.ts with its steps in guidelines/) → trends (trends-stage.ts) → files (each new dataset's Parquet and CSV and its comparisons' Parquet, dataset-files-stage.ts) → publish, each stage a file taking the build
 * context (opened by ingest-build.ts) and returning its part of the report (both typed in stage-parts.ts), which is
 * put together here. With a publication in place, load to statistics build the new and changed datasets
 * alone (a delta) and publish merges it into a copy of the published file (merge.ts); the first ingest builds the
 * whole file.
 */

/** Adds or replaces the datasets under `src`, keeps every other published one, publishes atomically. */
export async function runIngest(options: IngestOptions): Promise<Report> {
  const started = performance.now();
  const clock = stageClock();
  let sources = await clock.time('read', () => read(options.src, options.regionsFile, { doiPattern: options.doiPattern }));
  if (sources.datasets.length === 0) {
    const error = sources.failed.length === 0 ? `no dataset folder (with metadata.json) under ${options.src}` : 'no dataset could be read';
    return finish({ published: false, error, datasets: [...sources.failed] }, started);
  }
  const build = await clock.time('open', () => openIngest(options, sources.regions));
  const filesDir = plainFilesDir(build.file.target);
  const filesBefore = await datasetFilesIn(filesDir);
  let publication: string | undefined;
  try {
    const recased = recasedDois(sources, build.previous.datasets.keys());
    if (recased.failed.length > 0) sources = recased;
    const changed = sources.datasets.filter((ds) => build.previous.datasets.get(ds.metadata.DOI)?.contentHash !== ds.contentHash);
    const loaded = await clock.time('load', () => load(build, changed));
    // Nothing to publish when every dataset read was new or changed and none of them loaded.
    if (loaded.loaded.length === 0 && changed.length === sources.datasets.length) {
      await abandonBuild(build.file);
      return finish({ published: false, error: 'no dataset has a valid row (see rejects)', datasets: datasetReports(sources, loaded) }, started);
    }
    const derived = await clock.time('derive', () => derive(build));
    const stats = await clock.time('statistics', () => statistics(build, loaded));
    const guidelines = await clock.time('guidelines', () => guidelinesStage(build, { comparisons: options.guidelineComparisons }));
    const trends = await clock.time('trends', () => trendsStage(build, loaded, options.trends ?? defaultTrendSettings));
    publication = stats.meta.publicationId;
    const files = await clock.time('files', () => datasetFilesStage(build, loaded, stats));
    const published = await clock.time('publish', () => publishIngest(build, loaded, stats, trends, files));
    const report: Report = { ...publishedReport(sources, loaded, published, started, clock.laps), cpuMs: clock.cpu, peakRssMB: clock.rss, derive: derived, guidelines, trends };
    for (const d of report.datasets) build.log.info(summaryLine(d));
    for (const line of stageLines(report)) build.log.info(line);
    build.log.info(`published ${options.duckdbPath}: ${report.datasets.reduce((n, d) => n + d.rowsLoaded, 0)} rows loaded in ${(report.durationMs / 1000).toFixed(1)} s (${report.rowsPerSecond} rows/s)`);
    return report;
  } catch (err) {
    await abandonBuild(build.file);
    // The files this run wrote, unless its publication got into place before the failure (then it lists them).
    if (publication === undefined || (await publicationOf(build.file.target)) !== publication) await removeFilesSince(filesDir, filesBefore);
    throw err;
  } finally {
    await build.copy?.discard();
  }
}

function publishedReport(sources: ReadPart, loaded: LoadPart, published: PublishPart, started: number, timingsMs: Record<string, number>): Report {
  return { ...finish({ published: published.published, datasets: datasetReports(sources, loaded) }, started), publication: published.publication, timingsMs };
}

/** A report per folder read: the read's failures, then each dataset in folder order with its load's part. */
function datasetReports(sources: ReadPart, loaded: LoadPart): DatasetReport[] {
  const outcomes = new Map(loaded.datasets.map((d) => [d.ds, d]));
  return [...sources.failed, ...sources.datasets.map((ds) => datasetReportOf(ds, outcomes.get(ds)))];
}

/** A dataset not loaded (no outcome) was unchanged: its published rows and Ids stay. */
function datasetReportOf(ds: SourceDataset, outcome: DatasetLoad | undefined): DatasetReport {
  const base = datasetReport(ds.metadata.DOI, ds.folder, outcome?.status ?? 'unchanged', ds.found);
  if (!outcome) return base;
  const { rowsRead, rowsLoaded, rowsRejected, rejects, warnings, error, rejectsFile } = outcome;
  return { ...base, rowsRead, rowsLoaded, rowsRejected, rejects: [...rejects], warnings: [...base.warnings, ...warnings], ...(error ? { error } : {}), ...(rejectsFile ? { rejectsFile } : {}) };
}

/**
 * DOIs compare case-insensitively: a folder whose DOI differs from a published one only in case is the same
 * dataset under another spelling. Replacing it would keep both spellings in the file, so it fails with what to do.
 */
function recasedDois(sources: ReadPart, published: Iterable<string>): ReadPart {
  const byKey = new Map([...published].map((doi) => [doiKey(doi), doi]));
  const failed: DatasetReport[] = [];
  const datasets = sources.datasets.filter((ds) => {
    const other = byKey.get(doiKey(ds.metadata.DOI));
    if (other === undefined || other === ds.metadata.DOI) return true;
    const error = `DOI ${ds.metadata.DOI} differs only in case from the published ${other}, the same DOI: spell it as published, or remove the published one first (make remove DOI='${other}')`;
    failed.push(failedReport(ds.metadata.DOI, ds.folder, error, ds.found));
    return false;
  });
  return { ...sources, datasets, failed: [...sources.failed, ...failed] };
}

/** Wall time, CPU time and peak RSS (stage-memory.ts) per stage, for the report and `make bench`. */
function stageClock() {
  const laps: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  const rss: Record<string, number> = {};
  return {
    laps,
    cpu,
    rss,
    async time<T>(stage: string, run: () => Promise<T>): Promise<T> {
      resetPeakRss();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const result = await run();
      laps[stage] = Math.round(performance.now() - t0);
      const used = process.cpuUsage(c0);
      cpu[stage] = Math.round((used.user + used.system) / 1000);
      const peak = peakRssMB();
      if (peak !== undefined) rss[stage] = peak;
      return result;
    },
  };
}

/** What the stages after load did beyond the datasets' counts, a line each. */
export function stageLines(report: Report): string[] {
  const lines: string[] = [];
  if (report.derive) lines.push(`derive: ${report.derive.memberships} region membership(s) of the new and changed locations`);
  const g = report.guidelines;
  if (g) {
    const qc = g.qualityControlSetAside > 0 ? `; ${g.qualityControlSetAside} quality-control result(s) (blanks, replicates, spikes) set aside, compared with nothing` : '';
    lines.push(`guidelines: ${g.guidelines} guidelines; ${g.comparisons} comparison(s) and ${g.indexRows} water quality index row(s) for the new and changed datasets${qc}`);
  }
  if (report.trends) lines.push(trendsLine(report.trends));
  return lines;
}

export function summaryLine(d: DatasetReport): string {
  const name = d.DOI ?? d.folder ?? '(unknown)';
  const file = d.rejectsFile ? ` (every reject: ${d.rejectsFile})` : '';
  if (d.status === 'failed') return `${name}: FAILED: ${d.error ?? ''}${file}`;
  if (d.status === 'unchanged') return `${name}: unchanged, kept with its Ids`;
  const warn = d.warnings.length > 0 ? `, ${d.warnings.length} warning(s)` : '';
  return `${name}: ${d.rowsRead} read, ${d.rowsLoaded} loaded, ${d.rowsRejected} rejected${warn}${file}`;
}

import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { doiKey } from '../schemas/metadata-schema.js';
import { plainFilesDir } from '../schemas/publication-files.js';
import { newPublicationId } from '../schemas/publication.js';
import { removeStaleBuilds } from './build-file.js';
import { collectFiles } from './dataset-files.js';
import { run } from './db.js';
import { publishChange } from './merge.js';
import { readPrevious, type Previous } from './previous.js';
import { datasetReport, failedReport, finish, type Report } from './report.js';
import type { TrendsMeta } from './meta-rows.js';
import { defaultTrendSettings, ingestMemory } from './settings.js';
import { literal } from './sql.js';
import type { Log } from './stage-parts.js';
import { periodsText, recomputeReason, resolvePeriods, type TrendSettings } from './trends/trend-periods.js';
import { latestUsableYear } from './trends/trend-sql.js';

/** `make remove DOI=…`: publishes the current file without one dataset, a merge that only deletes (merge.ts). */

export interface RemoveOptions {
  readonly duckdbPath: string;
  readonly doi: string;
  readonly log?: Log;
  readonly memoryLimitBytes?: number;
  /** PUBLICATION_RETENTION_MS (dataset-files.ts, collectFiles). */
  readonly retentionMs?: number;
  /** TRENDS_END_YEAR and TRENDS_PERIODS: when the end year or the periods move, every series is recomputed. */
  readonly trends?: TrendSettings;
}

export async function runRemove(options: RemoveOptions): Promise<Report> {
  const started = performance.now();
  const target = resolve(options.duckdbPath);
  await removeStaleBuilds(target);
  const settings = options.trends ?? defaultTrendSettings;
  const prev = await publishedAt(target, options.doi, settings);
  // DOIs compare case-insensitively; the published spelling is the one removed and reported.
  const doi = [...(prev?.datasets.keys() ?? [])].find((d) => doiKey(d) === doiKey(options.doi));
  if (!prev || doi === undefined) {
    const error = prev ? `DOI ${options.doi} is not published in ${options.duckdbPath}` : `${options.duckdbPath} does not exist`;
    return finish({ published: false, error, datasets: [failedReport(options.doi, undefined, error)] }, started);
  }
  // The removed dataset's trend rows leave with it, unless the hub's end year moves with it: then every series.
  const why = recomputeReason(true, prev.trends, prev.trendsAfter);
  const meta = { maxObservationId: prev.maxObservationId, maxLocationId: prev.maxLocationId, publicationId: newPublicationId(), trends: prev.trendsAfter };
  const publication = { parent: prev.publicationId, changes: [{ DOI: doi, DatasetName: prev.datasets.get(doi)!.name, change: 'removed' as const }] };
  const recomputeTrends = why === undefined ? undefined : resolvePeriods(settings.periods, prev.trendsAfter.endYear);
  const merged = await publishChange(target, { drop: [doi], meta, publication, ...(recomputeTrends ? { recomputeTrends } : {}) }, { memoryLimitBytes: ingestMemory(options.memoryLimitBytes).limitBytes });
  // The removed dataset's files stay while the replaced publication may still be served; the next publish removes them.
  await collectFiles(plainFilesDir(target), prev.files, options.retentionMs);
  options.log?.info(`removed ${doi}; published ${options.duckdbPath}`);
  const trends = { ...prev.trendsAfter, recomputed: why === undefined ? ('changed' as const) : ('all' as const), ...(why ? { reason: why } : {}), series: merged.trends?.series ?? 0, rows: merged.trends?.rows ?? 0 };
  return { ...finish({ published: true, datasets: [datasetReport(doi, undefined, 'removed')] }, started), publication: meta.publicationId, trends };
}

/**
 * What is published at `path` (numbering, change detection), read through an in-memory instance, with the trends'
 * EndYear and periods as they will be once `doi` is removed (the hub's latest year may leave with it).
 */
async function publishedAt(path: string, doi: string, settings: TrendSettings): Promise<(Previous & { trendsAfter: TrendsMeta }) | undefined> {
  if (!existsSync(path)) return undefined;
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await run(conn, `ATTACH ${literal(resolve(path))} AS prev (READ_ONLY)`);
    const prev = await readPrevious(conn, true);
    const dropped = [...prev.datasets.keys()].filter((d) => doiKey(d) === doiKey(doi));
    const endYear = settings.endYear ?? (await latestUsableYear(conn, { kind: 'hub', dropped, withBuild: false }));
    return { ...prev, trendsAfter: { endYear, periods: periodsText(settings.periods) } };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

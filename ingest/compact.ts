import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { plainFilesDir } from '../schemas/publication-files.js';
import { newPublicationId } from '../schemas/publication.js';
import { abandonBuild, openBuild } from './build-file.js';
import { createBuildTables, list, locationCore } from './build-tables.js';
import { writeComparisonStats } from './comparison-stats.js';
import { collectFiles } from './dataset-files.js';
import { carryPublication, recordPublication } from './publication-history.js';
import { run } from './db.js';
import { readPrevious, type Previous } from './previous.js';
import { publishBuild } from './publish.js';
import { finish, type Report } from './report.js';
import { ingestMemory } from './settings.js';
import type { Log } from './stage-parts.js';
import { writeStatistics } from './statistics.js';
import { DEFAULT_PERIODS, parsePeriods, resolvePeriods } from './trends/trend-periods.js';
import { writeTrends } from './trends/write-trends.js';

/**
 * `make compact`: rewrites the published file from itself as a first ingest lays it out (same rows, Ids and
 * statistics; a new publication id), without the space that removed and replaced datasets left behind
 * (docs/storage.md, "Compaction").
 */
export async function runCompact(options: { readonly duckdbPath: string; readonly log?: Log; readonly memoryLimitBytes?: number; readonly retentionMs?: number }): Promise<Report> {
  const started = performance.now();
  const build = await openBuild(options.duckdbPath);
  if (!build.hasPrevious) {
    await abandonBuild(build);
    return finish({ published: false, error: `${options.duckdbPath} does not exist`, datasets: [] }, started);
  }
  const publicationId = newPublicationId();
  let prev: Previous;
  try {
    prev = await readPrevious(build.conn, true);
    await createBuildTables(build.conn, ingestMemory(options.memoryLimitBytes));
    // No REGIONS_FILE here: memberships are carried over as published.
    await copyPublished(build.conn);
    // The trends recomputed for the EndYear and periods they were published for: the same rows and Ids.
    const trends = prev.trends ?? { endYear: null, periods: DEFAULT_PERIODS };
    await writeStatistics(build.conn, { maxObservationId: prev.maxObservationId, maxLocationId: prev.maxLocationId, publicationId, trends }, STORAGE_SCHEMA_VERSION);
    await writeTrends(build.conn, { kind: 'build' }, resolvePeriods(parsePeriods(trends.periods), trends.endYear));
    // Same rows, same files: the history gains this publication with no change, so `since` a compaction answers.
    await carryPublication(build.conn);
    await recordPublication(build.conn, { id: publicationId, parent: prev.publicationId, changes: [] });
    await publishBuild(build);
  } catch (err) {
    await abandonBuild(build);
    throw err;
  }
  await collectFiles(plainFilesDir(build.target), prev.files, options.retentionMs);
  options.log?.info(`compacted ${options.duckdbPath} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { ...finish({ published: true, datasets: [] }, started), publication: publicationId };
}

/**
 * Copies every row of the attached published file `prev` into the build, observations in one INSERT in stored
 * order, which is Id order (the API checks it at open), so DuckDB writes full compressed row groups straight into
 * the file; an INSERT per dataset went through the WAL and left partial row groups (docs/performance.md). The
 * small tables go to the accumulators writeStatistics reads.
 */
async function copyPublished(conn: DuckDBConnection): Promise<void> {
  const obs = list(columnNames('observations'));
  await run(conn, `INSERT INTO observations (${obs}) SELECT ${obs} FROM prev.observations`);
  await run(conn, `INSERT INTO all_locations SELECT ${list(locationCore)} FROM prev.locations`);
  await run(conn, `INSERT INTO all_datasets SELECT ${list(columnNames('datasets'))} FROM prev.datasets`);
  await run(conn, `INSERT INTO all_stats SELECT ${list(columnNames('observation_stats'))} FROM prev.observation_stats`);
  await run(conn, 'CREATE TEMP TABLE all_regions AS SELECT * FROM prev.location_regions');
  // The guideline tables as published, each in its stored order (Id; LocationId, Year, Publisher).
  for (const table of ['guidelines', 'guideline_comparisons', 'water_quality_index'] as const) {
    const cols = list(columnNames(table));
    await run(conn, `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM prev.${table} ORDER BY "Id"`);
  }
  // Their statistics recounted from the comparisons just copied, in their order (comparison-stats.ts).
  await writeComparisonStats(conn);
}

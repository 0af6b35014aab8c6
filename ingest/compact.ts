import { columnNames, STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { newPublicationId } from '../schemas/publication.js';
import { run } from './db.js';
import { locationCore, prepareLoad } from './load.js';
import { INGEST_VERSION, type Log } from './pipeline.js';
import { readPrevious } from './previous.js';
import { abandonBuild, openBuild, publishBuild } from './publish.js';
import { finish, type Report } from './report.js';
import { ident } from './sql.js';
import { writeStatistics } from './statistics.js';

/**
 * `make compact`: rewrites the published file from itself as a first ingest lays it out (same rows, Ids and
 * statistics; a new publication id), without the space that removed and replaced datasets left behind
 * (docs/storage.md, "Compaction"). Observations are copied in one INSERT in stored order, which is Id order (the
 * API checks it at open), so DuckDB writes full compressed row groups straight into the file; an INSERT per dataset
 * went through the WAL and left partial row groups (10M rows: a 198 MB file in 38.7 s).
 */
export async function runCompact(options: { readonly duckdbPath: string; readonly log?: Log }): Promise<Report> {
  const started = performance.now();
  const build = await openBuild(options.duckdbPath);
  if (!build.hasPrevious) {
    await abandonBuild(build);
    return finish({ published: false, error: `${options.duckdbPath} does not exist`, datasets: [] }, started);
  }
  const publicationId = newPublicationId();
  try {
    const prev = await readPrevious(build.conn, true);
    await prepareLoad(build.conn);
    const obs = columnNames('observations').map(ident).join(', ');
    await run(build.conn, `INSERT INTO observations (${obs}) SELECT ${obs} FROM prev.observations`);
    await run(build.conn, `INSERT INTO all_locations SELECT ${locationCore.map(ident).join(', ')} FROM prev.locations`);
    await run(build.conn, `INSERT INTO all_datasets SELECT ${columnNames('datasets').map(ident).join(', ')} FROM prev.datasets`);
    await run(build.conn, `INSERT INTO all_stats SELECT ${columnNames('observation_stats').map(ident).join(', ')} FROM prev.observation_stats`);
    // No REGIONS_FILE here: memberships are carried over as published.
    await run(build.conn, 'CREATE TEMP TABLE all_regions AS SELECT * FROM prev.location_regions');
    await writeStatistics(build.conn, { ingestVersion: INGEST_VERSION, maxObservationId: prev.maxObservationId, maxLocationId: prev.maxLocationId, publicationId }, STORAGE_SCHEMA_VERSION);
    await publishBuild(build);
  } catch (err) {
    await abandonBuild(build);
    throw err;
  }
  options.log?.info(`compacted ${options.duckdbPath} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { ...finish({ published: true, datasets: [] }, started), publication: publicationId };
}

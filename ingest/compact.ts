import { STORAGE_SCHEMA_VERSION } from '../schemas/index.js';
import { newPublicationId } from '../schemas/publication.js';
import { copyPublished, prepareLoad } from './load.js';
import { INGEST_VERSION, type Log } from './pipeline.js';
import { readPrevious } from './previous.js';
import { abandonBuild, openBuild, publishBuild } from './publish.js';
import { finish, type Report } from './report.js';
import { ingestMemory } from './settings.js';
import { writeStatistics } from './statistics.js';

/**
 * `make compact`: rewrites the published file from itself as a first ingest lays it out (same rows, Ids and
 * statistics; a new publication id), without the space that removed and replaced datasets left behind
 * (docs/storage.md, "Compaction").
 */
export async function runCompact(options: { readonly duckdbPath: string; readonly log?: Log; readonly memoryLimitBytes?: number }): Promise<Report> {
  const started = performance.now();
  const build = await openBuild(options.duckdbPath);
  if (!build.hasPrevious) {
    await abandonBuild(build);
    return finish({ published: false, error: `${options.duckdbPath} does not exist`, datasets: [] }, started);
  }
  const publicationId = newPublicationId();
  try {
    const prev = await readPrevious(build.conn, true);
    await prepareLoad(build.conn, ingestMemory(options.memoryLimitBytes));
    // No REGIONS_FILE here: memberships are carried over as published.
    await copyPublished(build.conn);
    await writeStatistics(build.conn, { ingestVersion: INGEST_VERSION, maxObservationId: prev.maxObservationId, maxLocationId: prev.maxLocationId, publicationId }, STORAGE_SCHEMA_VERSION);
    await publishBuild(build);
  } catch (err) {
    await abandonBuild(build);
    throw err;
  }
  options.log?.info(`compacted ${options.duckdbPath} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { ...finish({ published: true, datasets: [] }, started), publication: publicationId };
}

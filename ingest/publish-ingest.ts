import { plainFilesDir } from '../schemas/publication-files.js';
import { abandonBuild } from './build-file.js';
import { collectFiles } from './dataset-files.js';
import { publishChange } from './merge.js';
import { checkpointAndClose, publishBuild } from './publish.js';
import type { FilesPart, IngestBuild, LoadPart, PublishPart, StatisticsPart, TrendsPart } from './stage-parts.js';

/**
 * Stage 6 (publish): the first build is the file (publish.ts: checkpoint, fsync, rename over DUCKDB_PATH); onto a
 * published file the build is a delta, merged into the copy of it made meanwhile (merge.ts), which is then
 * renamed over DUCKDB_PATH the same way, and the delta deleted. Then the files folder loses every dataset file that
 * neither the new publication nor the one it replaced lists (dataset-files.ts, collectFiles).
 */

export async function publishIngest(build: IngestBuild, loaded: LoadPart, stats: StatisticsPart, trends: TrendsPart, files: FilesPart): Promise<PublishPart> {
  const { file } = build;
  if (file.delta) {
    await checkpointAndClose(file);
    // The datasets the delta holds new versions of replace their published rows; its trends replace the whole table
    // when it holds every series (the end year or the periods moved).
    const meta = { ...stats.meta, trends: { endYear: trends.endYear, periods: trends.periods } };
    const change = { drop: loaded.loaded.map((d) => d.DOI), delta: file.path, meta, publication: files.publication, trends: trends.recomputed === 'all' ? ('replace' as const) : ('append' as const) };
    await publishChange(file.target, change, { copy: build.copy, memoryLimitBytes: build.memory.limitBytes });
    await abandonBuild(file);
  } else await publishBuild(file);
  await collectFiles(plainFilesDir(file.target), files.keep, build.retentionMs);
  return { published: true, publication: stats.meta.publicationId };
}

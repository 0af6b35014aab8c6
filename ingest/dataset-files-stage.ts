import { plainFilesDir } from '../schemas/publication-files.js';
import { fileNameOf, recordDatasetFiles, writeDatasetFiles } from './dataset-files.js';
import { recordPublication } from './publication-history.js';
import type { FilesPart, IngestBuild, LoadPart, StatisticsPart } from './stage-parts.js';

/**
 * Stage 5½ (files), between guidelines and publish: every loaded dataset's Parquet and CSV file and its comparisons'
 * Parquet file (after the guidelines stage, so its comparisons are in the build) into
 * `<DUCKDB_PATH>.files/` (dataset-files.ts), listed in the build's dataset_files; unchanged datasets are not built,
 * so their files are neither written nor touched, and the merge keeps their rows. The publication's history row and
 * its changes go into a full build here, into the merged file by merge.ts.
 */

export async function datasetFilesStage(build: IngestBuild, loaded: LoadPart, stats: StatisticsPart): Promise<FilesPart> {
  const writers = { conn: build.conn, connect: build.file.connect };
  const written = await writeDatasetFiles(writers, plainFilesDir(build.file.target), loaded.loaded, stats.meta.publicationId);
  await recordDatasetFiles(build.conn, written);
  const changes = loaded.loaded.map((d) => ({
    DOI: d.DOI,
    DatasetName: d.ds.metadata.DatasetName,
    change: build.previous.datasets.has(d.DOI) ? ('replaced' as const) : ('added' as const),
  }));
  const publication = { parent: build.previous.publicationId, changes };
  if (!build.file.delta) await recordPublication(build.conn, { id: stats.meta.publicationId, ...publication });
  return { written, publication, keep: new Set([...build.previous.files, ...written.map(fileNameOf)]) };
}

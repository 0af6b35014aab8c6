import { plainFilesDir } from '../schemas/publication-files.js';
import { fileNameOf, recordDatasetFiles, writeDatasetFiles, type DatasetFile } from './dataset-files.js';
import type { IngestBuild } from './ingest-build.js';
import type { LoadPart } from './load.js';
import { recordPublication, type PublicationRecord } from './publication-history.js';
import type { StatisticsPart } from './statistics.js';

/**
 * Stage 5½ (files), between statistics and publish: every loaded dataset's Parquet and CSV file into
 * `<DUCKDB_PATH>.files/` (dataset-files.ts), listed in the build's dataset_files; unchanged datasets are not built,
 * so their files are neither written nor touched, and the merge keeps their rows. The publication's history row and
 * its changes go into a full build here, into the merged file by merge.ts.
 */

export interface FilesPart {
  readonly written: readonly DatasetFile[];
  readonly publication: Omit<PublicationRecord, 'id'>;
  /** The files a plain-mode collection keeps after the publish: the new publication's and the replaced one's. */
  readonly keep: ReadonlySet<string>;
}

export async function datasetFilesStage(build: IngestBuild, loaded: LoadPart, stats: StatisticsPart): Promise<FilesPart> {
  const written = await writeDatasetFiles({ conn: build.conn, connect: build.file.connect }, plainFilesDir(build.file.target), loaded.loaded);
  await recordDatasetFiles(build.conn, written, stats.meta.publicationId);
  const changes = loaded.loaded.map((d) => ({
    DOI: d.DOI,
    DatasetName: d.ds.metadata.DatasetName,
    change: build.previous.datasets.has(d.DOI) ? ('replaced' as const) : ('added' as const),
  }));
  const publication = { parent: build.previous.publicationId, changes };
  if (!build.file.delta) await recordPublication(build.conn, { id: stats.meta.publicationId, ...publication });
  return { written, publication, keep: new Set([...build.previous.files, ...written.map(fileNameOf)]) };
}

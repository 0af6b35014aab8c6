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
import { ingestMemory } from './settings.js';
import { literal } from './sql.js';
import type { Log } from './stage-parts.js';

/** `make remove DOI=…`: publishes the current file without one dataset, a merge that only deletes (merge.ts). */

export interface RemoveOptions {
  readonly duckdbPath: string;
  readonly doi: string;
  readonly log?: Log;
  readonly memoryLimitBytes?: number;
  /** PUBLICATION_RETENTION_MS (dataset-files.ts, collectFiles). */
  readonly retentionMs?: number;
}

export async function runRemove(options: RemoveOptions): Promise<Report> {
  const started = performance.now();
  const target = resolve(options.duckdbPath);
  await removeStaleBuilds(target);
  const prev = await publishedAt(target);
  // DOIs compare case-insensitively; the published spelling is the one removed and reported.
  const doi = [...(prev?.datasets.keys() ?? [])].find((d) => doiKey(d) === doiKey(options.doi));
  if (!prev || doi === undefined) {
    const error = prev ? `DOI ${options.doi} is not published in ${options.duckdbPath}` : `${options.duckdbPath} does not exist`;
    return finish({ published: false, error, datasets: [failedReport(options.doi, undefined, error)] }, started);
  }
  const meta = { maxObservationId: prev.maxObservationId, maxLocationId: prev.maxLocationId, publicationId: newPublicationId() };
  const publication = { parent: prev.publicationId, changes: [{ DOI: doi, DatasetName: prev.datasets.get(doi)!.name, change: 'removed' as const }] };
  await publishChange(target, { drop: [doi], meta, publication }, { memoryLimitBytes: ingestMemory(options.memoryLimitBytes).limitBytes });
  // The removed dataset's files stay while the replaced publication may still be served; the next publish removes them.
  await collectFiles(plainFilesDir(target), prev.files, options.retentionMs);
  options.log?.info(`removed ${doi}; published ${options.duckdbPath}`);
  return { ...finish({ published: true, datasets: [datasetReport(doi, undefined, 'removed')] }, started), publication: meta.publicationId };
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

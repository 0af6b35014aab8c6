/**
 * TEMPORARY until ingest writes dataset files (issue 29): the lead deletes this at merge.
 *
 * Test support: a copy of the shared fixture file with what ingest will write beside every publication
 * (schemas/publication-files.ts): the `dataset_files`, `publication_history` and `publication_changes` tables, and
 * each dataset's Records as real Parquet and CSV files in `<copy>.files/`, named by their real SHA-256. The files are
 * written by DuckDB's COPY from query/compile-export.ts's SQL, the shape the export route and ingest write.
 *
 * The history it records: an earlier publication that added every dataset, then the fixture's own publication
 * (its `tributary_meta.publication_id`), which replaced the first dataset (so only that dataset's files carry the
 * current publication's id) and removed a dataset that is no longer in the file.
 *
 * Tests reach it only through files-fixture.ts, whose one line switches them to the real fixture.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getResource } from '../../../schemas/index.js';
import { datasetFileName, DOWNLOAD_FORMATS, plainFilesDir, type DownloadFormat } from '../../../schemas/publication-files.js';
import { parseQuery } from '../odata/index.js';
import { compileExport } from '../query/compile-export.js';
import { planQuery, type PagePlan } from '../query/plan.js';
import { literal } from '../query/sql.js';
import { csvHeader } from '../stream/page-writers.js';
import type { FilesFixture } from './files-fixture.js';

/** The earlier publication the history starts from: before any real one (ids sort by time). */
const EARLIER_PUBLICATION = '20200101T000000000Z-00000000';
const REMOVED_DOI = '10.99999/removed-dataset';

export async function publicationFilesFixture(fixtureDb: string): Promise<FilesFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-files-'));
  const path = join(dir, 'tributary.duckdb');
  await copyFile(fixtureDb, path);
  const filesDir = plainFilesDir(path);
  await mkdir(filesDir);
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  try {
    const rows = async (sql: string, params: DuckDBValue[] = []) => (await conn.runAndReadAll(sql, params)).getRowObjects();
    const current = String((await rows(`SELECT value FROM tributary_meta WHERE key = 'publication_id'`))[0]?.['value']);
    const datasets = (await rows(`SELECT "DOI", "DatasetName" FROM datasets ORDER BY "DOI"`)).map((r) => ({ doi: String(r['DOI']), name: String(r['DatasetName']) }));
    await conn.run(`CREATE TABLE dataset_files ("DOI" VARCHAR NOT NULL, "Format" VARCHAR NOT NULL, "Sha256" VARCHAR NOT NULL, "Bytes" BIGINT NOT NULL, "Rows" BIGINT NOT NULL, "PublicationId" VARCHAR NOT NULL)`);
    await conn.run(`CREATE TABLE publication_history ("PublicationId" VARCHAR NOT NULL, "CreatedAt" TIMESTAMP NOT NULL, "Parent" VARCHAR)`);
    await conn.run(`CREATE TABLE publication_changes ("PublicationId" VARCHAR NOT NULL, "DOI" VARCHAR NOT NULL, "DatasetName" VARCHAR NOT NULL, "Change" VARCHAR NOT NULL)`);
    await conn.run(`INSERT INTO publication_history VALUES ($1, TIMESTAMP '2020-01-01 00:00:00', NULL), ($2, TIMESTAMP '2026-11-25 06:00:00', $1)`, [EARLIER_PUBLICATION, current]);
    for (const [i, d] of datasets.entries()) {
      const writtenBy = i === 0 ? current : EARLIER_PUBLICATION;
      await conn.run(`INSERT INTO publication_changes VALUES ($1, $2, $3, 'added')`, [EARLIER_PUBLICATION, d.doi, d.name]);
      if (i === 0) await conn.run(`INSERT INTO publication_changes VALUES ($1, $2, $3, 'replaced')`, [current, d.doi, d.name]);
      for (const format of DOWNLOAD_FORMATS) {
        const written = await writeDatasetFile(conn, dir, filesDir, d.doi, format);
        await conn.run(`INSERT INTO dataset_files VALUES ($1, $2, $3, $4, $5, $6)`, [d.doi, format, written.sha256, written.bytes, written.rows, writtenBy]);
      }
    }
    await conn.run(`INSERT INTO publication_changes VALUES ($1, $3, 'Removed dataset', 'added'), ($2, $3, 'Removed dataset', 'removed')`, [EARLIER_PUBLICATION, current, REMOVED_DOI]);
    await conn.run('CHECKPOINT');
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  return { path, filesDir, close: () => rm(dir, { recursive: true, force: true }) };
}

/** One dataset's Records in one format, written as ingest writes it, then renamed to its content's name. */
async function writeDatasetFile(conn: DuckDBConnection, dir: string, filesDir: string, doi: string, format: DownloadFormat) {
  const plan = planQuery(parseQuery(`$filter=${encodeURIComponent(`DOI eq '${doi.replaceAll("'", "''")}'`)}`), getResource('Records')!) as PagePlan;
  const compiled = compileExport(plan, format);
  if (compiled.kind !== 'copy') throw new Error(`${format} is not written by COPY`);
  const tmp = join(dir, `partial.${format}`);
  const reader = await conn.runAndReadAll(`COPY (${compiled.query.sql}) TO ${literal(tmp)} (${compiled.options})`, compiled.query.params as DuckDBValue[]);
  const rows = Number(reader.getRows()[0]?.[0] ?? 0);
  if (format === 'csv') await writeFile(tmp, Buffer.concat([Buffer.from(`${csvHeader(plan.fields)}\r\n`), await readFile(tmp)]));
  const bytes = await readFile(tmp);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await rename(tmp, join(filesDir, datasetFileName(sha256, format)));
  return { sha256, bytes: bytes.length, rows };
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { getResource } from '../schemas/catalogue.js';
import { bboxOf as bboxFromRow, boundsSql, geoColumnsSql, geoCopyOption, type Bbox } from '../schemas/geoparquet.js';
import { datasetFileName, DOWNLOAD_EXTENSIONS, DOWNLOAD_FILE_TYPE, DOWNLOAD_FORMATS, type DatasetFile, type DownloadFormat } from '../schemas/publication-files.js';
import { csvHeader, csvRowSql, PARQUET_COPY_OPTIONS, parquetColumnsSql, textCopyOptions, type SqlNames } from '../schemas/row-sql.js';
import { pointColumns } from '../schemas/storage.js';
import { alive, fsyncPath } from './build-file.js';
import { all, run } from './db.js';
import { ident, literal } from './sql.js';
import type { NewRows } from './stage-parts.js';

/**
 * Each new or replaced dataset's Records as Parquet and as CSV (issue 29; the contract: schemas/publication-files.ts),
 * written from the build's `observations` before the build is published: DuckDB's COPY writes a temp file in the files
 * folder, which is hashed, fsynced and renamed to its content address `sha256-<hex>.<ext>`. A file is therefore
 * complete under its final name before any published file lists it; a run killed meanwhile leaves only files no
 * publication lists, which the next publish removes (collectFiles).
 *
 * The rows are the API's own (schemas/row-sql.ts): the Parquet file is what `/v1/export/Records` writes for
 * `$filter=DOI eq '…'`, the CSV file that export's CSV (a header line, then a `$format=csv` page's lines). The
 * Parquet file is GeoParquet 1.1 (schemas/geoparquet.ts): a point geometry and its bbox after the Records' columns.
 * The comparisons file (issue 45) is what `/v1/export/GuidelineComparisons` writes for the same filter: the served
 * fields of the dataset's guideline comparisons in Id order, then their location's point, GeoParquet too. The
 * guidelines stage runs before this one (pipeline.ts), so the build holds them.
 */

const records = getResource('Records')!;
const comparisons = getResource('GuidelineComparisons')!;
const ALIAS = 'o';
const LOCATION = 'l';
const names: SqlNames = { column: (name) => `${ALIAS}.${ident(name)}`, ident, constant: literal };
const locationNames: SqlNames = { column: (name) => `${LOCATION}.${ident(name)}`, ident, constant: literal };
/** guideline_comparisons' Id is ObservationId × this + GuidelineId. */
const COMPARISONS_PER_OBSERVATION = 4096;
const TMP = '.tmp-';
const FILE_NAME = /^sha256-[0-9a-f]{64}\.(parquet|csv)$/;

/** The file name (in the files folder and the store's objects alike) of a dataset_files row. */
export const fileNameOf = (f: { readonly sha256: string; readonly format: DownloadFormat }) => datasetFileName(f.sha256, f.format);

/**
 * The COPY of one dataset's rows: a dataset is one Id range, so the scan reads only its row groups (zone maps); no
 * ORDER BY, as the export has none: rows are stored in Id order (preserve_insertion_order keeps it in the output).
 */
function copySql(format: DownloadFormat, range: NewRows, path: string, bbox: Bbox | undefined): string {
  if (format === 'comparisons-parquet') {
    const columns = `${parquetColumnsSql(comparisons.fields, names)}, ${geoColumnsSql(pointColumns.locations, locationNames)}`;
    // Across the join DuckDB need not keep stored order: the export's rows are Id order, so say so.
    return `COPY (SELECT ${columns} ${comparisonsSql(range)} ORDER BY ${ALIAS}.${ident('Id')}) TO ${literal(path)} (${PARQUET_COPY_OPTIONS}, ${geoCopyOption(bbox, literal)})`;
  }
  const from = rangeSql(range);
  if (format === 'parquet') {
    const columns = `${parquetColumnsSql(records.fields, names)}, ${geoColumnsSql(pointColumns.observations, names)}`;
    return `COPY (SELECT ${columns} ${from}) TO ${literal(path)} (${PARQUET_COPY_OPTIONS}, ${geoCopyOption(bbox, literal)})`;
  }
  // The header is the one column's name, written verbatim as the row text is (quoting off): one pass, no rewrite.
  const header = ident(csvHeader(records.fields));
  return `COPY (SELECT ${csvRowSql(records.fields, names)} AS ${header} ${from}) TO ${literal(path)} (${textCopyOptions('\\r\\n', literal, true)})`;
}

function checkRange(range: NewRows): void {
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to)) throw new Error(`not an Id range: ${range.from}…${range.to}`);
}

function rangeSql(range: NewRows): string {
  checkRange(range);
  return `FROM observations ${ALIAS} WHERE ${ALIAS}.${ident('Id')} BETWEEN ${range.from} AND ${range.to}`;
}

/**
 * The dataset's guideline comparisons with their location's point, as `/v1/export/GuidelineComparisons` writes them:
 * a comparison's Id is its ObservationId × 4096 + GuidelineId (schemas/guideline-comparison-fields.ts), so the
 * dataset's comparisons are one Id range too, read by zone maps as its observations are.
 */
function comparisonsSql(range: NewRows): string {
  checkRange(range);
  const id = `${ALIAS}.${ident('Id')}`;
  return (
    `FROM guideline_comparisons ${ALIAS} JOIN locations ${LOCATION} ON ${LOCATION}.${ident('Id')} = ${ALIAS}.${ident('LocationId')} ` +
    `WHERE ${id} BETWEEN ${range.from * COMPARISONS_PER_OBSERVATION} AND ${range.to * COMPARISONS_PER_OBSERVATION + COMPARISONS_PER_OBSERVATION - 1} AND ${ALIAS}.${ident('DOI')} = ${literal(range.DOI)}`
  );
}

/** The points' bbox of one file, which GeoParquet's `geo` metadata carries: DuckDB writes that before the rows. */
async function bboxOf(conn: DuckDBConnection, format: DownloadFormat, range: NewRows): Promise<Bbox | undefined> {
  const sql = format === 'comparisons-parquet' ? `SELECT ${boundsSql(pointColumns.locations, locationNames)} ${comparisonsSql(range)}` : `SELECT ${boundsSql(pointColumns.observations, names)} ${rangeSql(range)}`;
  const [row] = await all(conn, sql);
  return row ? bboxFromRow(row) : undefined;
}

async function sha256Of(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** Hashes, fsyncs and renames a written temp file to its content address. */
async function finish(dir: string, tmp: string, file: Omit<DatasetFile, 'sha256' | 'bytes'>): Promise<DatasetFile> {
  const { sha256, bytes } = await sha256Of(tmp);
  await fsyncPath(tmp);
  // Same name, same content: replacing an existing file changes nothing a reader could see.
  await rename(tmp, join(dir, datasetFileName(sha256, file.format)));
  return { ...file, sha256, bytes };
}

/** The connections that write files, one per DuckDB thread; `connect` opens more on the same database. */
export interface FileWriters {
  readonly conn: DuckDBConnection;
  connect(): Promise<DuckDBConnection>;
}

/**
 * Writes every file of each dataset in `ranges` into `dir` for the publication `publication`; each is complete under
 * its hash when this returns, and the result is in the order of `ranges`, each dataset's in DOWNLOAD_FORMATS order.
 *
 * One file per thread, each COPY on one thread: most datasets are smaller than a Parquet row group, which DuckDB
 * writes on one thread anyway, and a COPY spread over threads spent its CPU on coordinating them (docs/performance.md,
 * Alternatives measured and rejected). `threads` is DuckDB's global setting, so it is set to 1 for the stage and restored after. The largest
 * datasets go first, so the last file written is a small one. While DuckDB writes, Node hashes and fsyncs the files
 * already written.
 */
export async function writeDatasetFiles(writers: FileWriters, dir: string, ranges: readonly NewRows[], publication: string): Promise<DatasetFile[]> {
  await mkdir(dir, { recursive: true });
  const threads = Number(String((await writers.conn.runAndReadAll("SELECT current_setting('threads')")).getRows()[0]?.[0]));
  const jobs = ranges
    .flatMap((range, i) => DOWNLOAD_FORMATS.map((format, f) => ({ range, format, index: i * DOWNLOAD_FORMATS.length + f })))
    .sort((a, b) => b.range.to - b.range.from - (a.range.to - a.range.from) || a.index - b.index);
  const finishing: Promise<DatasetFile>[] = [];
  const results: DatasetFile[] = new Array(jobs.length);
  const work = async (conn: DuckDBConnection) => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const { range, format, index } = job;
      const tmp = join(dir, `${TMP}${process.pid}-${index}.${DOWNLOAD_EXTENSIONS[format]}`);
      const write = async () => run(conn, copySql(format, range, tmp, DOWNLOAD_FILE_TYPE[format] === 'parquet' ? await bboxOf(conn, format, range) : undefined));
      const rows = await write().catch((err: unknown) => {
        jobs.length = 0; // the other writers stop after their current file
        throw err;
      });
      const done = finish(dir, tmp, { DOI: range.DOI, format, rows, publication }).then((f) => (results[index] = f));
      done.catch(() => {}); // observed below
      finishing.push(done);
    }
  };
  await run(writers.conn, 'SET threads = 1');
  try {
    const conns = [writers.conn];
    while (conns.length < Math.max(1, threads)) conns.push(await writers.connect());
    const failed = (await Promise.allSettled(conns.map(work))).find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    await Promise.all(finishing);
    await fsyncPath(dir);
    return results;
  } catch (err) {
    await Promise.allSettled(finishing);
    await removeTempFiles(dir, true);
    throw err;
  } finally {
    await run(writers.conn, `SET threads = ${threads}`);
  }
}

/** Lists `files` in the build's dataset_files. */
export async function recordDatasetFiles(conn: DuckDBConnection, files: readonly DatasetFile[]): Promise<void> {
  // In the table's documented order (DOI, Format), which the merge keeps.
  const key = (f: DatasetFile) => `${f.DOI}\u0000${f.format}`;
  for (const f of [...files].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) {
    await run(conn, 'INSERT INTO dataset_files VALUES ($1, $2, $3, $4, $5, $6)', [f.DOI, f.format, f.sha256, f.bytes, f.rows, f.publication]);
  }
}

/** Temp files of writers that are gone (killed); with `own`, this process's too. */
async function removeTempFiles(dir: string, own = false): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(TMP)) continue;
    const pid = Number.parseInt(name.slice(TMP.length), 10);
    if ((pid === process.pid && own) || !alive(pid)) await rm(join(dir, name), { force: true }).catch(() => {});
  }
}

/** Beside the files: when each file no publication lists any more stopped being listed (collectFiles). */
export const UNLISTED_FILE = 'unlisted.json';
/** The dataset files (`sha256-<hex>.<ext>`) in `dir` now. */
export async function datasetFilesIn(dir: string): Promise<Set<string>> {
  return new Set((await readdir(dir).catch(() => [] as string[])).filter((name) => FILE_NAME.test(name)));
}

/**
 * After a run that failed before its publication was in place: removes the dataset files it wrote (those `dir` holds
 * and `before` did not), which no publication lists. On a disk that filled up they are the space the next run
 * needs; left there, only a later successful publish would collect them.
 */
export async function removeFilesSince(dir: string, before: ReadonlySet<string>): Promise<string[]> {
  await removeTempFiles(dir, true);
  const removed: string[] = [];
  // Not collectFiles: the files `before` held keep their place in UNLISTED_FILE's clock.
  for (const name of await datasetFilesIn(dir)) {
    if (before.has(name)) continue;
    if (await rm(join(dir, name), { force: true }).then(() => true, () => false)) removed.push(name);
  }
  return removed;
}

/**
 * After a publish: removes every dataset file in `dir` that `keep` does not name (the files of the new publication
 * and of the one it replaced, which an API may serve for up to its poll interval) once it has gone unlisted for
 * `retentionMs` (PUBLICATION_RETENTION_MS: an API still serves the older publications pinned requests name, and
 * their manifests link these files), and killed runs' temp files. When each file went unlisted is kept in
 * UNLISTED_FILE. A download still reading a removed file keeps its open handle. Never fails the publish it follows:
 * a file that cannot be removed now is tried again after the next one.
 */
export async function collectFiles(dir: string, keep: ReadonlySet<string>, retentionMs = 0, now = Date.now()): Promise<string[]> {
  await removeTempFiles(dir);
  const since = await readUnlisted(dir);
  const unlisted: Record<string, string> = {};
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!FILE_NAME.test(name) || keep.has(name)) continue;
    const at = since[name] ?? new Date(now).toISOString();
    if (now - Date.parse(at) < retentionMs) unlisted[name] = at;
    else if (await rm(join(dir, name), { force: true }).then(() => true, () => false)) removed.push(name);
    else unlisted[name] = at;
  }
  await writeUnlisted(dir, unlisted).catch(() => {});
  return removed;
}

async function readUnlisted(dir: string): Promise<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(dir, UNLISTED_FILE), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string' && !Number.isNaN(Date.parse(v)))) : {};
  } catch {
    return {};
  }
}

async function writeUnlisted(dir: string, unlisted: Record<string, string>): Promise<void> {
  const path = join(dir, UNLISTED_FILE);
  if (Object.keys(unlisted).length === 0) return rm(path, { force: true });
  const tmp = `${path}${TMP}${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(unlisted, null, 1)}\n`);
  await rename(tmp, path);
}

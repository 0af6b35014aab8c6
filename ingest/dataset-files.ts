import type { DuckDBConnection } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { getResource } from '../schemas/catalogue.js';
import { datasetFileName, DOWNLOAD_FORMATS, type DownloadFormat } from '../schemas/publication-files.js';
import { csvHeader, csvRowSql, PARQUET_COPY_OPTIONS, parquetColumnsSql, textCopyOptions, type SqlNames } from '../schemas/row-sql.js';
import { run } from './db.js';
import type { NewRows } from './number-batch.js';
import { fsyncPath } from './publish.js';
import { ident, literal } from './sql.js';

/**
 * Each new or replaced dataset's Records as Parquet and as CSV (issue 29; the contract: schemas/publication-files.ts),
 * written from the build's `observations` before the build is published: DuckDB's COPY writes a temp file in the files
 * folder, which is hashed, fsynced and renamed to its content address `sha256-<hex>.<ext>`. A file is therefore
 * complete under its final name before any published file lists it; a run killed meanwhile leaves only files no
 * publication lists, which the next publish removes (collectFiles).
 *
 * The rows are the API's own (schemas/row-sql.ts): the Parquet file is what `/v1/export/Records` writes for
 * `$filter=DOI eq '…'`, the CSV file that export's CSV (a header line, then a `$format=csv` page's lines).
 */

const records = getResource('Records')!;
const ALIAS = 'o';
const names: SqlNames = { column: (name) => `${ALIAS}.${ident(name)}`, ident, constant: literal };
const TMP = '.tmp-';

export interface DatasetFile {
  readonly DOI: string;
  readonly format: DownloadFormat;
  readonly sha256: string;
  readonly bytes: number;
  readonly rows: number;
}

/** The file name (in the files folder and the store's objects alike) of a dataset_files row. */
export const fileNameOf = (f: { readonly sha256: string; readonly format: DownloadFormat }) => datasetFileName(f.sha256, f.format);

/**
 * The COPY of one dataset's rows: a dataset is one Id range, so the scan reads only its row groups (zone maps); no
 * ORDER BY, as the export has none: rows are stored in Id order (preserve_insertion_order keeps it in the output).
 */
function copySql(format: DownloadFormat, range: NewRows, path: string): string {
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to)) throw new Error(`not an Id range: ${range.from}…${range.to}`);
  const from = `FROM observations ${ALIAS} WHERE ${ALIAS}.${ident('Id')} BETWEEN ${range.from} AND ${range.to}`;
  if (format === 'parquet') return `COPY (SELECT ${parquetColumnsSql(records.fields, names)} ${from}) TO ${literal(path)} (${PARQUET_COPY_OPTIONS})`;
  // The header is the one column's name, written verbatim as the row text is (quoting off): one pass, no rewrite.
  const header = ident(csvHeader(records.fields));
  return `COPY (SELECT ${csvRowSql(records.fields, names)} AS ${header} ${from}) TO ${literal(path)} (${textCopyOptions('\\r\\n', literal, true)})`;
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

/**
 * Rows of files hashed and fsynced while DuckDB writes the next ones: the hash is Node's CPU and the fsync the disk's,
 * both otherwise idle while a COPY runs on DuckDB's threads; a CSV takes longer to hash and flush than the next
 * dataset's Parquet takes to write, so one file in flight would still leave the COPYs waiting.
 */
const IN_FLIGHT = 4;

/** Hashes, fsyncs and renames a written temp file to its content address. */
async function finish(dir: string, tmp: string, doi: string, format: DownloadFormat, rows: number): Promise<DatasetFile> {
  const { sha256, bytes } = await sha256Of(tmp);
  await fsyncPath(tmp);
  // Same name, same content: replacing an existing file changes nothing a reader could see.
  await rename(tmp, join(dir, datasetFileName(sha256, format)));
  return { DOI: doi, format, sha256, bytes, rows };
}

/** Writes both files of each dataset in `ranges` into `dir`, in order; each complete under its hash when this returns. */
export async function writeDatasetFiles(conn: DuckDBConnection, dir: string, ranges: readonly NewRows[]): Promise<DatasetFile[]> {
  await mkdir(dir, { recursive: true });
  const finishing: Promise<DatasetFile>[] = [];
  try {
    for (const range of ranges) {
      for (const format of DOWNLOAD_FORMATS) {
        const tmp = join(dir, `${TMP}${process.pid}-${finishing.length}.${format}`);
        const rows = await run(conn, copySql(format, range, tmp));
        const done = finish(dir, tmp, range.DOI, format, rows);
        done.catch(() => {}); // observed below
        finishing.push(done);
        if (finishing.length > IN_FLIGHT) await finishing[finishing.length - 1 - IN_FLIGHT];
      }
    }
    const written = await Promise.all(finishing);
    await fsyncPath(dir);
    return written;
  } catch (err) {
    await Promise.allSettled(finishing);
    await removeTempFiles(dir, true);
    throw err;
  }
}

/** Lists `files` in the build's dataset_files, as written by `publicationId`. */
export async function recordDatasetFiles(conn: DuckDBConnection, files: readonly DatasetFile[], publicationId: string): Promise<void> {
  for (const f of files) {
    await run(conn, 'INSERT INTO dataset_files VALUES ($1, $2, $3, $4, $5, $6)', [f.DOI, f.format, f.sha256, f.bytes, f.rows, publicationId]);
  }
}

/** Temp files of writers that are gone (killed); with `own`, this process's too. */
async function removeTempFiles(dir: string, own = false): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(TMP)) continue;
    const pid = Number.parseInt(name.slice(TMP.length), 10);
    if ((pid === process.pid && own) || !alive(pid)) await rm(join(dir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * After a publish: removes every dataset file in `dir` that `keep` does not name (the files of the new publication
 * and of the one it replaced, which an API may serve for up to its poll interval), and killed runs' temp files.
 * A download still reading a removed file keeps its open handle.
 */
export async function collectFiles(dir: string, keep: ReadonlySet<string>): Promise<string[]> {
  await removeTempFiles(dir);
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!/^sha256-[0-9a-f]{64}\.(parquet|csv)$/.test(name) || keep.has(name)) continue;
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, storageTables, storedUploadColumns } from '../schemas/index.js';
import { all, run, scalarNumber } from './db.js';
import { locationSources } from './location-columns.js';
import { batchDatasets } from './batch-datasets.js';
import { loadDataset, locationCore, checkNewObservations, observationSortKey, type NewRows } from './load.js';
import type { Previous } from './previous.js';
import type { SourceDataset, SourceFile } from './read.js';
import { failDataset as failReport } from './report.js';
import { ident } from './sql.js';
import { failedRulesMaskSql, warningRules } from './rule-sql.js';
import { countRuleWarnings } from './rule-warnings.js';
import { fileRowsSql, stageDataset } from './validate.js';
import { castSql, rowOkSql } from './validate-sql.js';

/**
 * Stages 2 and 3 in one statement per batch (the default path): every CSV file of a batch of new or changed
 * datasets is read, judged, typed, sorted and written straight into `observations`. Staging 10M rows as text in
 * memory first, as the staged path does, cost ~8 s of the ~55 s ingest on its own, and loading from that staging
 * another ~30 s; this statement does both in ~25 s (docs/performance.md §7).
 *
 * Batches (batch-datasets.ts) bound the sort's memory: datasets in DOI order, a quarter of INGEST_MEMORY_LIMIT of
 * data files each, sorted and appended one batch after another, so Ids stay ascending and each location's Ids
 * one contiguous range. Rows of the batch in hand are those with `Id = 0` (every earlier row is numbered) at
 * rowids from the row count before it: a checkpoint may vacuum an earlier batch's deleted rows and shift the
 * rowids of later rows, so numbering takes the batch's first rowid in the same statement.
 *
 * Invalid rows are written too, flagged `_ok = false` and sorted after the batch's valid rows, so one scan yields
 * exact counts; they are deleted once the valid ones are numbered. The statement has no source positions, so a
 * dataset with anything to explain — an invalid or malformed row, a location whose attributes vary (the first
 * occurrence by line wins), a file DuckDB could not read in the statement, or no valid row at all — is staged
 * again on its own (validate.ts) for its rejects, warnings and locations. Its rows are not reloaded: the staged
 * verdicts must agree with these counts. A dataset with no valid row fails alone; its published version, if
 * any, is kept.
 */

export interface DirectOutcome {
  readonly maxObservationId: number;
  readonly maxLocationId: number;
  /** The datasets loaded, in Id order; a failed one is not among them. */
  readonly parts: readonly Part[];
}

type Part = NewRows & { readonly ds: SourceDataset };

export interface DirectOptions {
  readonly maxRejects: number;
  readonly progress?: (line: string) => void;
  /** Estimated data-file bytes per sorted batch (a quarter of INGEST_MEMORY_LIMIT, settings.ts). */
  readonly batchBytes: number;
}

const OK = '_ok';
/** Which file a row came from (its index in the batch, in DOI then file order), for the progress line per file. */
const FILE = '_file';
/** The upstream quality-control rules the row fails (NULL when none), counted into warnings per file. */
const WARN = '_warn';

/** Adds the validity flag, file index and failed warning rules the statement writes; all are dropped at the end. */
export async function prepareDirect(conn: DuckDBConnection): Promise<void> {
  await run(conn, `ALTER TABLE observations ADD COLUMN ${OK} BOOLEAN`);
  await run(conn, `ALTER TABLE observations ADD COLUMN ${FILE} INTEGER`);
  await run(conn, `ALTER TABLE observations ADD COLUMN ${WARN} UHUGEINT`);
}

export async function loadDirect(conn: DuckDBConnection, datasets: readonly SourceDataset[], prev: Previous, options: DirectOptions): Promise<DirectOutcome> {
  const ordered = [...datasets].sort((a, b) => (a.metadata.DOI < b.metadata.DOI ? -1 : 1));
  const batches = await batchDatasets(ordered, options.batchBytes);
  let maxima = { observation: prev.maxObservationId, location: prev.maxLocationId };
  const parts: Part[] = [];
  for (const [i, batch] of batches.entries()) {
    const label = batches.length > 1 ? ` (batch ${i + 1} of ${batches.length})` : '';
    const outcome = await loadBatch(conn, batch, maxima, label, options);
    parts.push(...outcome.parts);
    maxima = outcome.maxima;
  }
  for (const column of [OK, FILE, WARN]) await run(conn, `ALTER TABLE observations DROP COLUMN ${column}`);
  return { maxObservationId: maxima.observation, maxLocationId: maxima.location, parts };
}

interface Maxima {
  readonly observation: number;
  readonly location: number;
}

/** One batch: insert sorted, count, explain, number its locations and rows after `maxima`, delete its invalid rows. */
async function loadBatch(conn: DuckDBConnection, batch: readonly SourceDataset[], maxima: Maxima, label: string, options: DirectOptions): Promise<{ parts: Part[]; maxima: Maxima }> {
  const before = await scalarNumber(conn, 'SELECT count(*) FROM observations');
  const fresh = freshRows(before);
  const t0 = performance.now();
  const { files, unreadable } = await insertBatch(conn, batch, options);
  const perFile = await countRows(conn, fresh);
  const counts = new Map<string, { rows: number; valid: number }>();
  for (const c of perFile.values()) {
    const sum = counts.get(c.DOI) ?? { rows: 0, valid: 0 };
    counts.set(c.DOI, { rows: sum.rows + c.rows, valid: sum.valid + c.valid });
  }
  const malformed = await malformedFiles(conn);
  if (options.progress) reportPass(options.progress, files, perFile, batch.length, label, (performance.now() - t0) / 1000);
  for (const { fileIndex, warning } of await countRuleWarnings(conn, 'observations', `${fresh} AND ${OK}`, FILE, WARN, files.map((f) => f.name))) {
    files[fileIndex]?.ds.report.warnings.push(warning);
  }
  await run(conn, locationsSql(fresh));
  const varying = new Set((await all(conn, 'SELECT DISTINCT "DOI" FROM direct_locations WHERE variants > 1')).map((r) => String(r.DOI)));
  const parts: Part[] = [];
  let { observation, location } = maxima;
  for (const ds of batch) {
    const count = counts.get(ds.metadata.DOI) ?? { rows: 0, valid: 0 };
    if (count.valid === 0) {
      await failDataset(conn, ds, options);
      continue;
    }
    const explain = count.rows > count.valid || ds.files.some((f) => malformed.has(f.path) || unreadable.has(f.path)) || varying.has(ds.metadata.DOI);
    location += await datasetLocations(conn, ds, count, explain, { observation, location }, options);
    Object.assign(ds.report, { rowsLoaded: count.valid, status: 'loaded' });
    parts.push({ ds, DOI: ds.metadata.DOI, from: observation + 1, to: observation + count.valid });
    observation += count.valid;
  }
  await numberBatch(conn, before, parts, maxima.observation);
  return { parts, maxima: { observation, location } };
}

interface BatchFile {
  readonly ds: SourceDataset;
  readonly file: SourceFile;
  readonly name: string;
  /** The dataset's place in the batch (DOI order), the first sort key. */
  readonly part: number;
}

/**
 * Inserts the batch's files in one statement. A file DuckDB cannot read that way (a gzip stream with garbage after
 * it, a record its parser cannot recover from) fails the whole statement: each file is then read on its own to
 * find which, those are left out and the statement runs again without them. Their datasets are explained, and
 * staging reports such a file as rejected, as it reports a file it cannot read.
 */
async function insertBatch(conn: DuckDBConnection, batch: readonly SourceDataset[], options: DirectOptions): Promise<{ files: BatchFile[]; unreadable: Set<string> }> {
  const all = batch.flatMap((ds, part) => ds.files.map((file) => ({ ds, file, name: file.name, part })));
  try {
    await insertFiles(conn, all);
    return { files: all, unreadable: new Set() };
  } catch (err) {
    const unreadable = await unreadableFiles(conn, all);
    if (unreadable.size === 0) throw err;
    for (const f of all) if (unreadable.has(f.file.path)) options.progress?.(`${f.name}: cannot be read in one statement; reported as rejected`);
    const files = all.filter((f) => !unreadable.has(f.file.path));
    await insertFiles(conn, files);
    return { files, unreadable };
  }
}

async function insertFiles(conn: DuckDBConnection, files: readonly BatchFile[]): Promise<void> {
  if (files.length > 0) await run(conn, insertSql(files), files.flatMap((f) => [f.ds.metadata.DOI, f.file.path]));
}

/** Paths of the files that fail on their own; the reject tables are emptied for the statement that follows. */
async function unreadableFiles(conn: DuckDBConnection, files: readonly BatchFile[]): Promise<Set<string>> {
  const unreadable = new Set<string>();
  for (const { file } of files) {
    await scalarNumber(conn, `SELECT count(*) FROM (${fileRowsSql(file, '$1')})`, [file.path]).catch(() => unreadable.add(file.path));
  }
  await malformedFiles(conn);
  return unreadable;
}

/**
 * A dataset none of whose rows is valid fails on its own: staged for its rejects, its rows (all invalid) deleted
 * with the batch's, its published version kept.
 */
async function failDataset(conn: DuckDBConnection, ds: SourceDataset, options: DirectOptions): Promise<void> {
  const staged = await stageDataset(conn, ds, 'direct_stage', { maxRejects: options.maxRejects });
  await run(conn, `DROP TABLE ${staged.table}`);
  if (staged.rowsValid !== 0) throw new Error(`internal error: ${ds.metadata.DOI} has ${staged.rowsValid} valid rows when staged, none when loaded`);
  const r = ds.report;
  failReport(r, `no valid row in ${ds.folder}; ${r.rowsRejected} rejected, ${r.rejects.length > 0 ? 'see rejects' : 'no readable file'} (the published version, if any, is kept)`);
}

/** A line per file (its rows), then the pass's rows/s. */
function reportPass(progress: (line: string) => void, files: readonly { name: string }[], perFile: Map<number, { rows: number }>, datasets: number, label: string, seconds: number): void {
  const rows = [...perFile.values()].reduce((n, c) => n + c.rows, 0);
  for (const [i, file] of files.entries()) progress(`${file.name}: ${perFile.get(i)?.rows ?? 0} rows`);
  progress(`${rows} rows of ${datasets} dataset(s) read, validated and sorted in one pass${label} in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 1e-3))} rows/s)`);
}

/**
 * A dataset's locations into `all_locations`, numbered after `maxima.location`; returns how many. One with
 * something to explain is staged again on its own for its rejects, warnings and first occurrences by line.
 */
async function datasetLocations(conn: DuckDBConnection, ds: SourceDataset, count: { rows: number; valid: number }, explain: boolean, maxima: Maxima, options: DirectOptions): Promise<number> {
  const doi = ds.metadata.DOI;
  if (!explain) {
    ds.report.rowsRead += count.rows;
    return await run(conn, cleanLocationsSql(), [maxima.location, doi]);
  }
  const t1 = performance.now();
  const staged = await stageDataset(conn, ds, 'direct_stage', { maxRejects: options.maxRejects });
  if (staged.rowsValid !== count.valid) throw new Error(`internal error: ${doi} has ${staged.rowsValid} valid rows when staged, ${count.valid} when loaded`);
  const loaded = await loadDataset(conn, ds, staged, maxima);
  await run(conn, `DROP TABLE ${staged.table}`);
  ds.report.warnings.push(...loaded.warnings);
  options.progress?.(`${doi}: rejects and locations explained line by line in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  return loaded.locations;
}

/** The rows of the batch in hand: not numbered yet, after the `before` rows there were when it started. */
const freshRows = (before: number, table = '') => `${table}"Id" = 0 AND ${table}rowid >= ${Math.trunc(before)}`;

/**
 * Sets LocationId and numbers the batch's valid rows in place, Id = base + (rowid − the batch's first rowid) + 1
 * (valid rows come first, in order, at dense rowids), checks the planned ranges, adds their statistics, then
 * deletes the batch's invalid rows. The batch's first rowid is read in the numbering UPDATE itself: a checkpoint
 * between statements may shift it (loadDirect).
 */
async function numberBatch(conn: DuckDBConnection, before: number, parts: readonly Part[], base: number): Promise<void> {
  const fresh = freshRows(before);
  await run(
    conn,
    `UPDATE observations SET "LocationId" = l."Id" FROM all_locations l
     WHERE ${freshRows(before, 'observations.')} AND observations.${OK}
       AND l."DOI" = observations."DOI" AND l."MonitoringLocationID" = observations."MonitoringLocationID"`,
  );
  await run(conn, `UPDATE observations SET "Id" = $1 + (rowid - (SELECT min(rowid) FROM observations WHERE ${fresh})) + 1 WHERE ${fresh} AND ${OK}`, [base]);
  await checkNewObservations(conn, parts, base);
  await run(conn, `DELETE FROM observations WHERE ${fresh}`);
}

/**
 * Every row of every file, typed, with its verdict, sorted: valid rows first, by dataset (DOI order) and the
 * documented key. Columns that may not be NULL get a placeholder in invalid rows only (a valid row has them),
 * so the table's constraints hold until those rows are deleted. Id and LocationId are filled in afterwards.
 */
function insertSql(files: readonly BatchFile[]): string {
  const sources = files.map(({ file, part }, i) => `SELECT ${part} AS _part, ${i} AS ${FILE}, $${2 * i + 1}::VARCHAR AS "DOI", * EXCLUDE (extra_nl) FROM (${fileRowsSql(file, `$${2 * i + 2}`)})`);
  const notNull = new Set(storageTables.observations.filter((c) => !c.nullable).map((c) => c.column));
  const typed = storedUploadColumns.map((f) => {
    const value = castSql(f).replace(/^CAST\(/, 'TRY_CAST(');
    return `${notNull.has(f.name) ? `coalesce(${value}, ${placeholder(f.type)})` : value} AS ${ident(f.name)}`;
  });
  const derived: Record<string, string> = {
    Id: '0',
    LocationId: '0',
    ActivityStartYear: 'coalesce(year("ActivityStartDate"), 0)::INTEGER',
    ActivityGroupType: `coalesce(g._group, 'Other')`,
  };
  const cols = columnNames('observations');
  return `INSERT INTO observations (${cols.map(ident).join(', ')}, ${OK}, ${FILE}, ${WARN})
    SELECT ${cols.map((c) => derived[c] ?? ident(c)).join(', ')}, ${OK}, ${FILE}, ${WARN} FROM (
      SELECT _part, ${FILE}, "DOI", ${typed.join(', ')}, (${rowOkSql()}) AS ${OK}, ${failedRulesMaskSql(warningRules)} AS ${WARN}
      FROM (${sources.join('\n      UNION ALL ')})
    ) LEFT JOIN (SELECT "ActivityType" AS _type, "ActivityGroupType" AS _group FROM activity_groups) g ON g._type = "ActivityType"
    ORDER BY NOT ${OK}, _part, ${observationSortKey}`;
}

function placeholder(type: string): string {
  switch (type) {
    case 'number':
    case 'integer':
      return '0';
    case 'date':
      return "DATE '1970-01-01'";
    case 'time':
      return "TIME '00:00'";
    default:
      return "''";
  }
}

/** Rows and valid rows per file (by file index in the batch), with the file's dataset. */
async function countRows(conn: DuckDBConnection, fresh: string): Promise<Map<number, { DOI: string; rows: number; valid: number }>> {
  const rows = await all(conn, `SELECT ${FILE} AS f, any_value("DOI") AS doi, count(*) AS n, count_if(${OK}) AS valid FROM observations WHERE ${fresh} GROUP BY ${FILE}`);
  return new Map(rows.map((r) => [Number(r.f), { DOI: String(r.doi), rows: Number(r.n), valid: Number(r.valid) }]));
}

/** Paths of files with malformed records (the reader skipped them); the reject tables are emptied for staging. */
async function malformedFiles(conn: DuckDBConnection): Promise<Set<string>> {
  const rows = await all(conn, 'SELECT DISTINCT s.file_path FROM csv_rejects r JOIN csv_scans s USING (scan_id, file_id)').catch(() => []);
  await run(conn, 'DELETE FROM csv_rejects').catch(() => 0);
  await run(conn, 'DELETE FROM csv_scans').catch(() => 0);
  return new Set(rows.map((r) => String(r.file_path)));
}

/**
 * The locations of the batch's valid rows: attributes of each location's first row in Id order (equal in every
 * row unless `variants` > 1, in which case its dataset is staged for the first occurrence by line).
 */
function locationsSql(fresh: string): string {
  const attrs = locationSources.filter(({ column }) => column !== 'MonitoringLocationID');
  return `CREATE OR REPLACE TEMP TABLE direct_locations AS
    SELECT "DOI", "MonitoringLocationID", ${attrs.map(({ column, source }) => `arg_min(${ident(source.name)}, rowid) AS ${ident(column)}`).join(', ')},
      count(DISTINCT (${attrs.map(({ source }) => ident(source.name)).join(', ')})) AS variants
    FROM observations WHERE ${fresh} AND ${OK} GROUP BY "DOI", "MonitoringLocationID"`;
}

/** One clean dataset's locations into `all_locations`, numbered after `$1` in MonitoringLocationID order. */
function cleanLocationsSql(): string {
  const expr = (c: string) => (c === 'Id' ? '$1 + row_number() OVER (ORDER BY "MonitoringLocationID")' : ident(c));
  return `INSERT INTO all_locations (${locationCore.map(ident).join(', ')})
    SELECT ${locationCore.map(expr).join(', ')} FROM direct_locations WHERE "DOI" = $2`;
}

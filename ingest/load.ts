import type { DuckDBConnection } from '@duckdb/node-api';
import { batchDatasets } from './batch-datasets.js';
import { cleanLocationsSql, DEMOTED, FILE, freshRows, insertSql, locationsSql, OK, WARN, WORKING_COLUMNS, type BatchFile } from './batch-sql.js';
import { all, run, scalarNumber } from './db.js';
import { explainDataset, type Explained } from './explain.js';
import { numberBatch } from './number-batch.js';
import type { Warning } from './report.js';
import { rejectsPath, removeRejectsFile } from './rejects-file.js';
import { countRuleWarnings, type CountedRule } from './rule-warnings.js';
import { demotedChecks } from './validation-level.js';
import type { DatasetLoad, IngestBuild, LoadedDataset, LoadPart, SourceDataset } from './stage-parts.js';
import { fileRowsSql, prepareValidation } from './validate.js';

/**
 * Stages 2 and 3 (validate and load), one path: every CSV file of a batch of new or changed datasets is read,
 * judged, typed, sorted and written straight into `observations` in one statement (batch-sql.ts). Staging the
 * rows as text first and loading from there, as an earlier path did, moved every column twice (docs/performance.md §7).
 *
 * Batches (batch-datasets.ts) bound the sort's memory: datasets in DOI order, a quarter of INGEST_MEMORY_LIMIT of
 * data files each, sorted and appended one batch after another, so Ids stay ascending and each location's Ids
 * one contiguous range. Rows of the batch in hand are those with `Id = 0` (every earlier row is numbered) at
 * rowids from the row count before it: a checkpoint may vacuum an earlier batch's deleted rows and shift the
 * rowids of later rows, so numbering takes the batch's first rowid in the same statement (number-batch.ts).
 *
 * What the statement cannot say, its sub-step does: a dataset with something to explain is staged again on its
 * own for line numbers (explain.ts), and a file DuckDB cannot read in the statement is left out of it and
 * reported by that staging.
 */

interface Maxima {
  readonly observation: number;
  readonly location: number;
}

export async function load(build: IngestBuild, datasets: readonly SourceDataset[]): Promise<LoadPart> {
  await prepareValidation(build.conn);
  for (const column of WORKING_COLUMNS) await run(build.conn, `ALTER TABLE observations ADD COLUMN ${column}`);
  const ordered = [...datasets].sort((a, b) => (a.metadata.DOI < b.metadata.DOI ? -1 : 1));
  const batches = await batchDatasets(ordered, build.memory.batchBytes);
  let maxima: Maxima = { observation: build.previous.maxObservationId, location: build.previous.maxLocationId };
  const outcomes: DatasetLoad[] = [];
  const loaded: LoadedDataset[] = [];
  for (const [i, batch] of batches.entries()) {
    const label = batches.length > 1 ? ` (batch ${i + 1} of ${batches.length})` : '';
    const part = await loadBatch(build, batch, maxima, label);
    outcomes.push(...part.outcomes);
    loaded.push(...part.loaded);
    maxima = part.maxima;
  }
  for (const column of [OK, FILE, WARN, DEMOTED]) await run(build.conn, `ALTER TABLE observations DROP COLUMN ${column}`);
  return { datasets: outcomes, loaded, maxObservationId: maxima.observation, maxLocationId: maxima.location };
}

/** One batch: insert sorted, count, explain, number its locations and rows after `maxima`, delete its invalid rows. */
async function loadBatch(build: IngestBuild, batch: readonly SourceDataset[], maxima: Maxima, label: string) {
  const conn = build.conn;
  const before = await scalarNumber(conn, 'SELECT count(*) FROM observations');
  const t0 = performance.now();
  const { files, unreadable } = await insertBatch(build, batch);
  const seconds = (performance.now() - t0) / 1000;
  const judged = await judgeBatch(conn, freshRows(before), files);
  if (build.log.progress) reportPass(build.log.progress, files, judged.perFile, batch.length, label, seconds);
  const outcomes: DatasetLoad[] = [];
  const loaded: LoadedDataset[] = [];
  let { observation, location } = maxima;
  for (const ds of batch) {
    const explain = ds.files.some((f) => judged.malformed.has(f.path) || unreadable.has(f.path)) || judged.varying.has(ds.metadata.DOI);
    const { outcome, locations } = await datasetOutcome(build, ds, judged, explain, location);
    outcomes.push(outcome);
    if (outcome.status === 'failed') continue;
    loaded.push({ ds, DOI: ds.metadata.DOI, from: observation + 1, to: observation + outcome.rowsLoaded });
    observation += outcome.rowsLoaded;
    location += locations;
  }
  await numberBatch(conn, before, loaded, maxima.observation);
  return { outcomes, loaded, maxima: { observation, location } };
}

/**
 * A dataset's outcome, its locations numbered after `locationBase`: one with invalid, malformed or unread rows,
 * varying locations or no valid row is explained line by line; the others need nothing but their counts.
 */
async function datasetOutcome(build: IngestBuild, ds: SourceDataset, judged: Judged, explain: boolean, locationBase: number): Promise<Explained> {
  const count = judged.counts.get(ds.metadata.DOI) ?? { rows: 0, valid: 0 };
  const warnings = judged.warnings.get(ds) ?? [];
  const warnRows = (build.rejects.warnings || ds.metadata.ValidationLevel === 'storable') && warnings.length > 0;
  if (explain || count.valid === 0 || count.rows > count.valid || warnRows) return await explainDataset(build, ds, count, warnings, locationBase);
  await removeRejectsFile(rejectsPath(build.rejects.dir, ds.folder));
  const locations = await run(build.conn, cleanLocationsSql(), [locationBase, ds.metadata.DOI]);
  return { outcome: { ds, status: 'loaded', rowsRead: count.rows, rowsLoaded: count.valid, rowsRejected: 0, rejects: ds.found.rejects, warnings }, locations };
}

/**
 * Inserts the batch's files in one statement. A file DuckDB cannot read that way (a gzip stream with garbage after
 * it, a record its parser cannot recover from) fails the whole statement: each file is then read on its own to
 * find which, those are left out and the statement runs again without them. Their datasets are explained, and
 * staging reports such a file as rejected, as it reports any file it cannot read.
 */
async function insertBatch(build: IngestBuild, batch: readonly SourceDataset[]): Promise<{ files: BatchFile[]; unreadable: Set<string> }> {
  const all = batch.flatMap((ds, part) => ds.files.map((file) => ({ ds, file, name: file.name, part })));
  try {
    await insertFiles(build.conn, all);
    return { files: all, unreadable: new Set() };
  } catch (err) {
    // Memory is the build's, not the files': reading each alone would fail too and reject every row.
    if (outOfMemory(err)) throw new Error(`${(err as Error).message}\nloading ${batch.length} dataset(s) (${all.length} file(s)) needed more memory than INGEST_MEMORY_LIMIT (${Math.floor(build.memory.limitBytes / 2 ** 20)} MiB) allows: raise it, e.g. INGEST_MEMORY_LIMIT=2GB; nothing was published`);
    const unreadable = await unreadableFiles(build.conn, all);
    if (unreadable.size === 0) throw err;
    for (const f of all) if (unreadable.has(f.file.path)) build.log.progress?.(`${f.name}: cannot be read in one statement; reported as rejected`);
    const files = all.filter((f) => !unreadable.has(f.file.path));
    await insertFiles(build.conn, files);
    return { files, unreadable };
  }
}

async function insertFiles(conn: DuckDBConnection, files: readonly BatchFile[]): Promise<void> {
  if (files.length > 0) await run(conn, insertSql(files), files.flatMap((f) => [f.ds.metadata.DOI, f.file.path]));
}

/** DuckDB's own out-of-memory error: the build's limit, never a fault of the file being read. */
const outOfMemory = (err: unknown) => err instanceof Error && /^Out of Memory Error/.test(err.message);

/** Paths of the files that fail on their own; the reject tables are emptied for the statement that follows. */
async function unreadableFiles(conn: DuckDBConnection, files: readonly BatchFile[]): Promise<Set<string>> {
  const unreadable = new Set<string>();
  for (const { file } of files) {
    await scalarNumber(conn, `SELECT count(*) FROM (${fileRowsSql(file, '$1')})`, [file.path]).catch((err: unknown) => {
      if (outOfMemory(err)) throw err;
      unreadable.add(file.path);
    });
  }
  await malformedFiles(conn);
  return unreadable;
}

/** Upstream's errors a `storable` dataset counts as warnings, as the report names them. */
const demotedRules: readonly CountedRule[] = demotedChecks.map((c) => ({
  name: c.name,
  column: c.column,
  description: c.description,
  what: c.kind === 'rule' ? 'upstream rule (a warning at ValidationLevel storable)' : 'upstream check (a warning at ValidationLevel storable)',
}));

/** What one scan of the batch's rows says. */
interface Judged {
  /** Rows and valid rows per file, by its index in the batch. */
  readonly perFile: ReadonlyMap<number, { readonly rows: number }>;
  /** Rows and valid rows per dataset. */
  readonly counts: ReadonlyMap<string, { readonly rows: number; readonly valid: number }>;
  /** Paths of files with malformed records (the reader skipped them). */
  readonly malformed: ReadonlySet<string>;
  /** DOIs with a location whose attributes vary between rows. */
  readonly varying: ReadonlySet<string>;
  /** Upstream's quality-control warnings, counted per file, by dataset. */
  readonly warnings: ReadonlyMap<SourceDataset, readonly Warning[]>;
}

async function judgeBatch(conn: DuckDBConnection, fresh: string, files: readonly BatchFile[]): Promise<Judged> {
  const rows = await all(conn, `SELECT ${FILE} AS f, any_value("DOI") AS doi, count(*) AS n, count_if(${OK}) AS valid FROM observations WHERE ${fresh} GROUP BY ${FILE}`);
  const counts = new Map<string, { rows: number; valid: number }>();
  for (const r of rows) {
    const sum = counts.get(String(r.doi)) ?? { rows: 0, valid: 0 };
    counts.set(String(r.doi), { rows: sum.rows + Number(r.n), valid: sum.valid + Number(r.valid) });
  }
  const malformed = await malformedFiles(conn);
  const warnings = new Map<SourceDataset, Warning[]>();
  const names = files.map((f) => f.name);
  const counted = [
    ...(await countRuleWarnings(conn, 'observations', `${fresh} AND ${OK}`, FILE, WARN, names)),
    ...(files.some((f) => f.ds.metadata.ValidationLevel === 'storable') ? await countRuleWarnings(conn, 'observations', `${fresh} AND ${OK}`, FILE, DEMOTED, names, demotedRules) : []),
  ].sort((a, b) => a.fileIndex - b.fileIndex);
  for (const { fileIndex, warning } of counted) {
    const ds = files[fileIndex]?.ds;
    if (ds) warnings.get(ds)?.push(warning) ?? warnings.set(ds, [warning]);
  }
  await run(conn, locationsSql(fresh));
  const varying = new Set((await all(conn, 'SELECT DISTINCT "DOI" FROM batch_locations WHERE variants > 1')).map((r) => String(r.DOI)));
  return { perFile: new Map(rows.map((r) => [Number(r.f), { rows: Number(r.n) }])), counts, malformed, varying, warnings };
}

/** Paths of files with malformed records (the reader skipped them); the reject tables are emptied for staging. */
async function malformedFiles(conn: DuckDBConnection): Promise<Set<string>> {
  const rows = await all(conn, 'SELECT DISTINCT s.file_path FROM csv_rejects r JOIN csv_scans s USING (scan_id, file_id)').catch(() => []);
  await run(conn, 'DELETE FROM csv_rejects').catch(() => 0);
  await run(conn, 'DELETE FROM csv_scans').catch(() => 0);
  return new Set(rows.map((r) => String(r.file_path)));
}

/** A line per file (its rows), then the pass's rows/s. */
function reportPass(progress: (line: string) => void, files: readonly { name: string }[], perFile: Judged['perFile'], datasets: number, label: string, seconds: number): void {
  const rows = [...perFile.values()].reduce((n, c) => n + c.rows, 0);
  for (const [i, file] of files.entries()) progress(`${file.name}: ${perFile.get(i)?.rows ?? 0} rows`);
  progress(`${rows} rows of ${datasets} dataset(s) read, validated and sorted in one pass${label} in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 1e-3))} rows/s)`);
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, storageTables, storedUploadColumns } from '../schemas/index.js';
import { all, run, scalarNumber } from './db.js';
import { locationSources } from './location-columns.js';
import { loadDataset, locationCore, numberNewObservations, observationSortKey, type NewRows } from './load.js';
import type { Previous } from './previous.js';
import type { SourceDataset } from './read.js';
import { ident } from './sql.js';
import { failedRulesMaskSql, warningRules } from './rule-sql.js';
import { countRuleWarnings } from './rule-warnings.js';
import { fileRowsSql, stageDataset } from './validate.js';
import { castSql, rowOkSql } from './validate-sql.js';

/**
 * Stages 2 and 3 in one statement (the default path): every CSV file of every new or changed dataset is read,
 * judged, typed, sorted and written straight into `observations`. Staging 10M rows as text in memory first, as
 * the staged path does, cost ~8 s of the ~55 s ingest on its own, and loading from that staging another ~30 s;
 * this statement does both in ~25 s (docs/performance.md §7).
 *
 * Invalid rows are written too, flagged `_ok = false` and sorted after every valid row, so one scan yields
 * exact counts; they are deleted before numbering. The statement has no source positions, so a dataset with
 * anything to explain — an invalid or malformed row, or a location whose attributes vary (the first occurrence
 * by line wins) — is staged again on its own, as the staged path does, for its rejects, warnings and locations.
 * Its rows are not reloaded: the staged verdicts must agree with these counts.
 *
 * Falls back (returns the reason) before touching any report when a file cannot be read at all or a dataset has
 * no valid row: the staged path handles both per file and keeps a published version.
 */

export type DirectOutcome =
  | { readonly loaded: true; readonly maxObservationId: number; readonly maxLocationId: number; readonly parts: readonly (Omit<NewRows, 'stage'> & { readonly ds: SourceDataset })[] }
  | { readonly loaded: false; readonly reason: string };

export interface DirectOptions {
  readonly maxRejects: number;
  readonly progress?: (line: string) => void;
}

const OK = '_ok';
/** Which file a row came from (its index in DOI, then file order), for the progress line per file. */
const FILE = '_file';
/** The upstream quality-control rules the row fails (NULL when none), counted into warnings per file. */
const WARN = '_warn';

/** Adds the validity flag, file index and failed warning rules the statement writes; all are dropped before numbering. */
export async function prepareDirect(conn: DuckDBConnection): Promise<void> {
  await run(conn, `ALTER TABLE observations ADD COLUMN ${OK} BOOLEAN`);
  await run(conn, `ALTER TABLE observations ADD COLUMN ${FILE} INTEGER`);
  await run(conn, `ALTER TABLE observations ADD COLUMN ${WARN} UHUGEINT`);
}

export async function loadDirect(conn: DuckDBConnection, datasets: readonly SourceDataset[], prev: Previous, options: DirectOptions): Promise<DirectOutcome> {
  const ordered = [...datasets].sort((a, b) => (a.metadata.DOI < b.metadata.DOI ? -1 : 1));
  const empty = ordered.find((ds) => ds.files.length === 0);
  if (empty) return { loaded: false, reason: `${empty.folder} has no readable data file` };
  const before = await scalarNumber(conn, 'SELECT count(*) FROM observations');
  const t0 = performance.now();
  try {
    await run(conn, insertSql(ordered), ordered.flatMap((ds) => [ds.metadata.DOI, ...ds.files.map((f) => f.path)]));
  } catch (err) {
    return { loaded: false, reason: `a file could not be read in one pass (${(err as Error).message.split('\n')[0]})` };
  }
  const perFile = await countRows(conn, before);
  const counts = new Map<string, { rows: number; valid: number }>();
  for (const c of perFile.values()) {
    const sum = counts.get(c.DOI) ?? { rows: 0, valid: 0 };
    counts.set(c.DOI, { rows: sum.rows + c.rows, valid: sum.valid + c.valid });
  }
  const malformed = await malformedFiles(conn);
  for (const ds of ordered) {
    if ((counts.get(ds.metadata.DOI)?.valid ?? 0) === 0) return { loaded: false, reason: `${ds.metadata.DOI} has no valid row` };
  }
  const seconds = (performance.now() - t0) / 1000;
  const rows = [...counts.values()].reduce((n, c) => n + c.rows, 0);
  if (options.progress) {
    for (const [i, file] of ordered.flatMap((ds) => ds.files).entries()) options.progress(`${file.name}: ${perFile.get(i)?.rows ?? 0} rows`);
    options.progress(`${rows} rows of ${ordered.length} dataset(s) read, validated and sorted in one pass in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 1e-3))} rows/s)`);
  }

  const files = ordered.flatMap((ds) => ds.files.map((f) => ({ ds, name: f.name })));
  for (const { fileIndex, warning } of await countRuleWarnings(conn, 'observations', `rowid >= ${before} AND ${OK}`, FILE, WARN, files.map((f) => f.name))) {
    files[fileIndex]?.ds.report.warnings.push(warning);
  }
  if ([...counts.values()].some((c) => c.rows > c.valid)) await run(conn, `DELETE FROM observations WHERE rowid >= $1 AND NOT ${OK}`, [before]);
  await run(conn, locationsSql(), [before]);
  const varying = new Set((await all(conn, 'SELECT DISTINCT "DOI" FROM direct_locations WHERE variants > 1')).map((r) => String(r.DOI)));

  let maxObservationId = prev.maxObservationId;
  let maxLocationId = prev.maxLocationId;
  const parts: (Omit<NewRows, 'stage'> & { ds: SourceDataset })[] = [];
  for (const ds of ordered) {
    const doi = ds.metadata.DOI;
    const count = counts.get(doi) ?? { rows: 0, valid: 0 };
    let locations: number;
    if (count.rows > count.valid || ds.files.some((f) => malformed.has(f.path)) || varying.has(doi)) {
      const t1 = performance.now();
      const staged = await stageDataset(conn, ds, 'direct_stage', { maxRejects: options.maxRejects, warnings: false });
      if (staged.rowsValid !== count.valid) throw new Error(`internal error: ${doi} has ${staged.rowsValid} valid rows when staged, ${count.valid} when loaded`);
      const loaded = await loadDataset(conn, ds, staged, { observation: maxObservationId, location: maxLocationId });
      await run(conn, `DROP TABLE ${staged.table}`);
      ds.report.warnings.push(...loaded.warnings);
      locations = loaded.locations;
      options.progress?.(`${doi}: rejects and locations explained line by line in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    } else {
      ds.report.rowsRead += count.rows;
      locations = await run(conn, cleanLocationsSql(), [maxLocationId, doi]);
    }
    Object.assign(ds.report, { rowsLoaded: count.valid, status: 'loaded' });
    parts.push({ ds, DOI: doi, from: maxObservationId + 1, to: maxObservationId + count.valid });
    maxObservationId += count.valid;
    maxLocationId += locations;
  }
  await run(
    conn,
    `UPDATE observations SET "LocationId" = l."Id" FROM all_locations l
     WHERE observations.rowid >= $1 AND l."DOI" = observations."DOI" AND l."MonitoringLocationID" = observations."MonitoringLocationID"`,
    [before],
  );
  for (const column of [OK, FILE, WARN]) await run(conn, `ALTER TABLE observations DROP COLUMN ${column}`);
  await numberNewObservations(conn, parts, prev.maxObservationId, before);
  return { loaded: true, maxObservationId, maxLocationId, parts };
}

/**
 * Every row of every file, typed, with its verdict, sorted: valid rows first, by dataset (DOI order) and the
 * documented key. Columns that may not be NULL get a placeholder in invalid rows only (a valid row has them),
 * so the table's constraints hold until those rows are deleted. Id and LocationId are filled in afterwards.
 */
function insertSql(ordered: readonly SourceDataset[]): string {
  let param = 0;
  let fileIndex = 0;
  const sources = ordered.flatMap((ds, part) => {
    const doi = `$${++param}`;
    return ds.files.map((file) => `SELECT ${part} AS _part, ${fileIndex++} AS ${FILE}, ${doi}::VARCHAR AS "DOI", * EXCLUDE (extra_nl) FROM (${fileRowsSql(file, `$${++param}`)})`);
  });
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

/** Rows and valid rows per file (by file index), with the file's dataset. */
async function countRows(conn: DuckDBConnection, before: number): Promise<Map<number, { DOI: string; rows: number; valid: number }>> {
  const rows = await all(conn, `SELECT ${FILE} AS f, any_value("DOI") AS doi, count(*) AS n, count_if(${OK}) AS valid FROM observations WHERE rowid >= $1 GROUP BY ${FILE}`, [before]);
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
 * The locations of the new valid rows: attributes of each location's first row in Id order (equal in every
 * row unless `variants` > 1, in which case its dataset is staged for the first occurrence by line).
 */
function locationsSql(): string {
  const attrs = locationSources.filter(({ column }) => column !== 'MonitoringLocationID');
  return `CREATE OR REPLACE TEMP TABLE direct_locations AS
    SELECT "DOI", "MonitoringLocationID", ${attrs.map(({ column, source }) => `arg_min(${ident(source.name)}, rowid) AS ${ident(column)}`).join(', ')},
      count(DISTINCT (${attrs.map(({ source }) => ident(source.name)).join(', ')})) AS variants
    FROM observations WHERE rowid >= $1 GROUP BY "DOI", "MonitoringLocationID"`;
}

/** One clean dataset's locations into `all_locations`, numbered after `$1` in MonitoringLocationID order. */
function cleanLocationsSql(): string {
  const expr = (c: string) => (c === 'Id' ? '$1 + row_number() OVER (ORDER BY "MonitoringLocationID")' : ident(c));
  return `INSERT INTO all_locations (${locationCore.map(ident).join(', ')})
    SELECT ${locationCore.map(expr).join(', ')} FROM direct_locations WHERE "DOI" = $2`;
}

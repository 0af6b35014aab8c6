import type { DuckDBConnection } from '@duckdb/node-api';
import { activityGroupOf, columnNames, createTableSql, storedUploadColumns as uploadColumns, type StorageTable } from '../schemas/index.js';
import { all, appendRows, run, scalarNumber } from './db.js';
import { conflictColumns, locationSources } from './location-columns.js';
import type { SourceDataset } from './read.js';
import type { IngestMemory } from './settings.js';
import type { Warning } from './report.js';
import { ident } from './sql.js';
import type { Staged } from './validate.js';
import { castSql } from './validate-sql.js';

/**
 * Stage 3 (load): valid staged rows become `observations`, numbered after the current maxima in the order
 * (MonitoringLocationID, ActivityStartDate, ActivityStartTime, every other column, source position) and
 * inserted in that order, so each location is one contiguous Id range and the table is physically in Id order.
 * `loadDataset` numbers a dataset's locations and plans its Id range; `insertNewObservations` then sorts and
 * writes every new dataset in one INSERT. Locations, statistics and datasets accumulate in temporary tables and
 * are written in order at the end.
 */

export const finalTables: readonly StorageTable[] = ['datasets', 'locations', 'location_regions', 'observations', 'observation_stats', 'observation_rollup', 'observation_region_rollup', 'tributary_meta'];

const list = (cols: readonly string[], prefix = '') => cols.map((c) => `${prefix}${ident(c)}`).join(', ');
/** Locations without the observation range, which is known only once every observation is in. */
export const locationCore = columnNames('locations').filter((c) => c !== 'first_obs_id' && c !== 'last_obs_id');

/** Creates the build's tables and sets its memory limit (INGEST_MEMORY_LIMIT, db.ts). */
export async function prepareLoad(conn: DuckDBConnection, memory: IngestMemory): Promise<void> {
  await run(conn, `SET memory_limit = '${Math.floor(memory.limitBytes / 2 ** 20)}MiB'`);
  for (const table of finalTables) await run(conn, createTableSql(table));
  await run(conn, `CREATE TEMP TABLE all_locations AS SELECT ${list(locationCore)} FROM locations WITH NO DATA`);
  await run(conn, `CREATE TEMP TABLE all_stats AS SELECT * FROM observation_stats WITH NO DATA`);
  await run(conn, `CREATE TEMP TABLE all_datasets AS SELECT * FROM datasets WITH NO DATA`);
  await run(conn, 'CREATE TEMP TABLE activity_groups (ActivityType VARCHAR PRIMARY KEY, ActivityGroupType VARCHAR NOT NULL)');
  await appendRows(conn, 'activity_groups', Object.entries(activityGroupOf), 'main', 'temp');
}

/** A published dataset: its rows are one Id range, ascending. */
export interface KeptDataset {
  readonly DOI: string;
  readonly minId: number;
  readonly maxId: number;
}

/**
 * Copies every row of the attached published file `prev` into the build, observations in one INSERT in stored
 * order, which is Id order (the API checks it at open), so DuckDB writes full compressed row groups straight into
 * the file; an INSERT per dataset went through the WAL and left partial row groups (10M rows: a 198 MB file in
 * 38.7 s against 145 MB in 18.8 s). The small tables go to the accumulators writeStatistics reads.
 */
export async function copyPublished(conn: DuckDBConnection): Promise<void> {
  const obs = list(columnNames('observations'));
  await run(conn, `INSERT INTO observations (${obs}) SELECT ${obs} FROM prev.observations`);
  await run(conn, `INSERT INTO all_locations SELECT ${list(locationCore)} FROM prev.locations`);
  await run(conn, `INSERT INTO all_datasets SELECT ${list(columnNames('datasets'))} FROM prev.datasets`);
  await run(conn, `INSERT INTO all_stats SELECT ${list(columnNames('observation_stats'))} FROM prev.observation_stats`);
  await run(conn, 'CREATE TEMP TABLE all_regions AS SELECT * FROM prev.location_regions');
}

export interface Loaded {
  readonly rowsLoaded: number;
  readonly locations: number;
  readonly maxObservationId: number;
  readonly maxLocationId: number;
  readonly warnings: readonly Warning[];
}

export async function loadDataset(
  conn: DuckDBConnection,
  ds: SourceDataset,
  staged: Staged,
  offsets: { readonly observation: number; readonly location: number },
): Promise<Loaded> {
  await run(conn, datasetLocationsSql(staged.table), [offsets.location]);
  const locations = await scalarNumber(conn, 'SELECT count(*) FROM dataset_locations');
  await run(conn, `INSERT INTO all_locations SELECT ${locationCore.map((c) => (c === 'DOI' ? '$1' : ident(c))).join(', ')} FROM dataset_locations`, [ds.metadata.DOI]);
  const rowsLoaded = staged.rowsValid;
  const warnings = await conflicts(conn, staged);
  return { rowsLoaded, locations, maxObservationId: offsets.observation + rowsLoaded, maxLocationId: offsets.location + locations, warnings };
}

/** One row per MonitoringLocationID: attributes of its first occurrence (lowest source position), new Id. */
function datasetLocationsSql(stage: string): string {
  const firsts = locationSources.map(({ column, source }) => `arg_min(${castSql(source)}, rowid) AS ${ident(column)}`);
  const variants = `count(DISTINCT (${conflictAttrs('', false)})) AS variants`;
  return `CREATE OR REPLACE TEMP TABLE dataset_locations AS
    SELECT $1 + row_number() OVER (ORDER BY "MonitoringLocationID") AS "Id", ${firsts.filter((f) => !f.endsWith('AS "MonitoringLocationID"')).join(', ')},
      "MonitoringLocationID", ${variants}
    FROM ${stage} WHERE ok GROUP BY "MonitoringLocationID"`;
}

/**
 * The documented numbering key within a dataset: location, date, time, then every other upload column. The
 * staged path adds the source position (`_src`) as the last tie-break; rows equal in every column are
 * indistinguishable once stored, so the direct path, which has no source position, numbers the same table.
 */
export const observationSortKey = (() => {
  const lead = ['MonitoringLocationID', 'ActivityStartDate', 'ActivityStartTime'];
  const rest = uploadColumns.map((f) => f.name).filter((n) => !lead.includes(n));
  return [...lead, ...rest].map((c) => `${ident(c)} NULLS FIRST`).join(', ');
})();

/** A dataset whose valid staged rows are to be written, with the Id range `loadDataset` planned for it. */
export interface NewRows {
  readonly DOI: string;
  readonly stage: string;
  readonly from: number;
  readonly to: number;
}

/** Every observations column as an expression over the typed valid rows; Id is filled in afterwards. */
function observationExpr(column: string): string {
  if (column === 'Id') return '0';
  if (column === 'DOI' || column === 'LocationId' || column === 'ActivityStartYear' || column === 'ActivityGroupType') return ident(column);
  if (!uploadColumns.some((f) => f.name === column)) throw new Error(`observations.${column} has no source`);
  return ident(column);
}

/** One dataset's valid rows, typed, with its place in DOI order (`_part`) and source position (`_src`). */
function partSql(part: number, stage: string): string {
  const typed = uploadColumns.map((f) => `${castSql(f, `s.${ident(f.name)}`)} AS ${ident(f.name)}`).join(', ');
  return `SELECT ${part} AS _part, l."DOI", ${typed}, l."Id" AS "LocationId", year(CAST(s."ActivityStartDate" AS DATE))::INTEGER AS "ActivityStartYear",
      coalesce(g."ActivityGroupType", 'Other') AS "ActivityGroupType", s.rowid AS _src
    FROM ${stage} s JOIN all_locations l ON l."DOI" = $${part + 1} AND l."MonitoringLocationID" = s."MonitoringLocationID"
    LEFT JOIN activity_groups g ON g."ActivityType" = s."ActivityType"
    WHERE s.ok`;
}

/**
 * Writes the valid rows of every new dataset, sorted by (DOI order, the documented key), in one INSERT, then
 * numbers them in place: Id = base + (rowid − rows before) + 1, rowid being the row's physical place (the build
 * file is append-only, so rowids are dense). Three measured reasons for this shape (2M sample rows, 2 cores):
 * - `row_number() OVER ()` over the sorted rows makes DuckDB run the whole insert pipeline after it (casts,
 *   compression, writes) on one thread: 3× the wall time. The UPDATE of one BIGINT column costs ~0.1 CPU-s.
 * - One INSERT for all datasets lets DuckDB write compressed row groups straight into the file; an INSERT per
 *   dataset (~150k rows) went through the WAL and an automatic checkpoint (12.8 vs 6 CPU-s), and appending
 *   per dataset to a temporary table left partial row groups that the final checkpoint rewrote (+3–6 CPU-s).
 * - Sorting by every column costs little in DuckDB 1.5 (~1.2 CPU-s over an unsorted copy); a hash of the
 *   remaining columns as tie-break was slower (hashing 42 columns costs more than comparing them).
 * DuckDB keeps the sorted order into the table (preserve_insertion_order); the ranges are checked here and the
 * statistics stage checks that each location's Ids are one contiguous range.
 */
export async function insertNewObservations(conn: DuckDBConnection, parts: readonly NewRows[], base: number): Promise<number> {
  if (parts.length === 0) return 0;
  const before = await scalarNumber(conn, 'SELECT count(*) FROM observations');
  const cols = columnNames('observations');
  const union = parts.map((p, i) => partSql(i, p.stage)).join('\n    UNION ALL ');
  const rows = await run(
    conn,
    `INSERT INTO observations (${list(cols)}) SELECT ${cols.map(observationExpr).join(', ')} FROM (${union}) ORDER BY _part, ${observationSortKey}, _src`,
    parts.map((p) => p.DOI),
  );
  await numberNewObservations(conn, parts, base, before);
  return rows;
}

/**
 * Numbers the rows appended after the first `before` rows in place — Id = base + (rowid − before) + 1, rowid
 * being the row's physical place (the build file is append-only, so rowids are dense) — checks each dataset's
 * planned range, and adds their statistics.
 */
export async function numberNewObservations(conn: DuckDBConnection, parts: readonly Omit<NewRows, 'stage'>[], base: number, before: number): Promise<void> {
  await run(conn, 'UPDATE observations SET "Id" = $1 + (rowid - $2) + 1 WHERE rowid >= $2', [base, before]);
  await checkNewObservations(conn, parts, base);
}

/**
 * Checks that the rows numbered after `base` are exactly the planned ranges of `parts` (one per dataset), and adds
 * their statistics; every row above `base` must belong to `parts`.
 */
export async function checkNewObservations(conn: DuckDBConnection, parts: readonly Omit<NewRows, 'stage'>[], base: number): Promise<void> {
  const written = await all(conn, 'SELECT "DOI", count(*) AS n, min("Id") AS lo, max("Id") AS hi FROM observations WHERE "Id" > $1 GROUP BY "DOI"', [base]);
  for (const p of parts) {
    const w = written.find((r) => r.DOI === p.DOI);
    if (!w || Number(w.n) !== p.to - p.from + 1 || Number(w.lo) !== p.from || Number(w.hi) !== p.to) {
      throw new Error(`internal error: ${p.DOI} was numbered ${w ? `${String(w.lo)}…${String(w.hi)} (${String(w.n)} rows)` : 'nothing'}, planned ${p.from}…${p.to}`);
    }
  }
  await run(conn, statsSql(), [base]);
}

function statsSql(): string {
  const keys = ['LocationId', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'ActivityStartYear'];
  return `INSERT INTO all_stats SELECT ${list(keys)}, count(*), min("Id"), max("Id") FROM observations WHERE "Id" > $1 GROUP BY ${list(keys)}`;
}

/** The compared attributes, typed (45 and 45.0 are one latitude). */
function conflictAttrs(prefix = '', alias = true): string {
  return conflictColumns
    .map((c) => {
      const field = uploadColumns.find((f) => f.name === c);
      if (!field) throw new Error(`unknown conflict column ${c}`);
      return `${castSql(field, `${prefix}${ident(c)}`)}${alias ? ` AS ${ident(c)}` : ''}`;
    })
    .join(', ');
}

/** Locations whose name or coordinates differ between rows of one dataset; the first occurrence wins. */
async function conflicts(conn: DuckDBConnection, staged: Staged): Promise<Warning[]> {
  const attrs = conflictAttrs('s.');
  const rows = await all(
    conn,
    `SELECT s."MonitoringLocationID" AS id, ${attrs}, min(s.rowid) AS first_row, count(*) AS n
     FROM ${staged.table} s JOIN dataset_locations l USING ("MonitoringLocationID")
     WHERE s.ok AND l.variants > 1 GROUP BY ALL ORDER BY id, first_row LIMIT 1000`,
  );
  const warnings: Warning[] = [];
  const byId = new Map<string, Record<string, unknown>[]>();
  for (const r of rows) byId.set(String(r.id), [...(byId.get(String(r.id)) ?? []), r]);
  for (const [id, variants] of byId) {
    const described = await Promise.all(
      variants.map(async (v) => {
        const at = await staged.lineOf(Number(v.first_row));
        return { at, text: `'${String(v.MonitoringLocationName)}' (${String(v.MonitoringLocationLatitude)}, ${String(v.MonitoringLocationLongitude)}) first at ${at.file}:${at.line}, ${String(v.n)} row(s)` };
      }),
    );
    const [first, ...others] = described;
    if (!first) continue;
    warnings.push({
      file: others[0]?.at.file ?? first.at.file,
      line: others[0]?.at.line ?? first.at.line,
      message: `MonitoringLocationID '${id}' has conflicting name/coordinates: ${described.map((d) => d.text).join('; ')}. The first occurrence (lowest line) is used for the location.`,
    });
  }
  return warnings;
}

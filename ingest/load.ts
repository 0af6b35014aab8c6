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
 * The build's tables, and what the load (load-direct.ts) shares with its explanation: `loadDataset` numbers the
 * locations of a dataset staged line by line (validate.ts) from their first occurrences and reports conflicting
 * ones; `checkNewObservations` checks the planned Id ranges and adds their statistics. Locations, statistics and
 * datasets accumulate in temporary tables and are written in order at the end.
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
 * The documented numbering key within a dataset: location, date, time, then every other upload column. Rows
 * equal in every column are indistinguishable once stored, so no source position is needed as a tie-break.
 */
export const observationSortKey = (() => {
  const lead = ['MonitoringLocationID', 'ActivityStartDate', 'ActivityStartTime'];
  const rest = uploadColumns.map((f) => f.name).filter((n) => !lead.includes(n));
  return [...lead, ...rest].map((c) => `${ident(c)} NULLS FIRST`).join(', ');
})();

/** A dataset's new rows: the Id range planned for them. */
export interface NewRows {
  readonly DOI: string;
  readonly from: number;
  readonly to: number;
}

/**
 * Checks that the rows numbered after `base` are exactly the planned ranges of `parts` (one per dataset), and adds
 * their statistics; every row above `base` must belong to `parts`.
 */
export async function checkNewObservations(conn: DuckDBConnection, parts: readonly NewRows[], base: number): Promise<void> {
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

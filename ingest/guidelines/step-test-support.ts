import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { activityGroupFor } from '../../schemas/index.js';
import { createBuildTables } from '../build-tables.js';
import { all, appendRows, run } from '../db.js';
import { ingestMemory } from '../settings.js';
import { loadGuidelines, type Guideline } from './guideline-table.js';

/**
 * Test support for the guidelines stage's steps: a build's tables in an in-memory DuckDB, observations and their
 * locations put in as the load, derive and statistics stages leave them, and a guideline summary of a few rows in
 * the vendored file's layout, so that each step runs on exactly the cases its test names.
 */

export interface StepDb {
  readonly conn: DuckDBConnection;
  close(): void;
}

export async function stepDb(): Promise<StepDb> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await createBuildTables(conn, ingestMemory(1 << 30));
  return {
    conn,
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** One observation; what it leaves out is a routine surface-water sample at a river in Alberta. */
export interface TestObservation {
  readonly Id: number;
  readonly LocationId: number;
  readonly date: string;
  readonly characteristic: string;
  readonly fraction?: string;
  readonly speciation?: string;
  readonly value?: number;
  readonly unit?: string;
  readonly condition?: string;
  readonly limit?: number;
  readonly limitUnit?: string;
  readonly activityType?: string;
  readonly media?: string;
}

export interface TestLocation {
  readonly type?: string;
  readonly regions?: readonly string[];
}

const observationColumns = [
  'Id', 'DOI', 'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultValue', 'ResultUnit', 'ResultDetectionCondition',
  'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit', 'LocationId', 'ActivityStartYear', 'ActivityGroupType',
] as const;

/** Puts observations in `observations`, their locations in all_locations and all_regions, their counts in all_stats. */
export async function addObservations(conn: DuckDBConnection, observations: readonly TestObservation[], locations: Readonly<Record<number, TestLocation>> = {}): Promise<void> {
  const typeOf = (id: number) => locations[id]?.type ?? 'River/Stream';
  const rows = observations.map((o) => {
    const activityType = o.activityType ?? 'Sample-Routine';
    return [
      o.Id, '10.0/test', 'Test', `L${o.LocationId}`, `Location ${o.LocationId}`, 53.5, -113.5, 'WGS84', typeOf(o.LocationId), activityType, o.media ?? 'Surface Water', o.date,
      o.characteristic, o.fraction ?? null, o.speciation ?? null, o.value ?? null, o.unit ?? null, o.condition ?? null, o.limit ?? null, o.limitUnit ?? null,
      o.LocationId, Number(o.date.slice(0, 4)), activityGroupFor(activityType),
    ];
  });
  const params = rows.flat();
  const width = observationColumns.length;
  const values = rows.map((_, r) => `(${observationColumns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
  await run(conn, `INSERT INTO observations (${observationColumns.map((c) => `"${c}"`).join(', ')}) VALUES ${values}`, params);
  const ids = [...new Set(observations.map((o) => o.LocationId))];
  await run(
    conn,
    `INSERT INTO all_locations ("Id", "DOI", "MonitoringLocationID", "Name", "Latitude", "Longitude", "HorizontalCoordinateReferenceSystem", "MonitoringLocationType")
     SELECT DISTINCT "LocationId", "DOI", "MonitoringLocationID", "MonitoringLocationName", 53.5, -113.5, 'WGS84', "MonitoringLocationType" FROM observations WHERE "LocationId" NOT IN (SELECT "Id" FROM all_locations)`,
  );
  await run(conn, 'CREATE TEMP TABLE IF NOT EXISTS all_regions (LocationId BIGINT, RegionId VARCHAR)');
  await appendRows(conn, 'all_regions', ids.flatMap((id) => (locations[id]?.regions ?? ['admin.2.ca', 'admin.4.ca.ab']).map((r) => [BigInt(id), r])), 'main', 'temp');
  await run(conn, 'DELETE FROM all_stats');
  await run(
    conn,
    `INSERT INTO all_stats ("LocationId", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear", n, min_id, max_id)
     SELECT "LocationId", "CharacteristicName", "ActivityMediaName", "ActivityGroupType", "ActivityStartYear", count(*), min("Id"), max("Id") FROM observations GROUP BY ALL`,
  );
}

/** One row of a test summary: the vendored file's columns this code reads. */
export interface SummaryRow {
  readonly characteristic: string;
  readonly value: string;
  readonly unit?: string;
  readonly fraction?: string;
  readonly speciation?: string;
  readonly parameter?: string;
  readonly region?: string;
  readonly publisher?: string;
  readonly level?: string;
  readonly media?: string;
  readonly ecosystem?: string;
  readonly notes?: string;
}

const summaryHeader = 'Characteristic Name,Method Speciation,Sample Fraction,Parameter,Region,Publisher,Guideline Name,Status,Media Name,Ecosystem,Protection Level,Value,Unit,Notes,Look-up table ,Documentation/Spec Sheet Url,Citation,Reviewer,Last Reviewed';
const quoted = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** A guideline summary of these rows (Ids 1, 2, … in order), loaded as the vendored one is, with no corrections. */
export function testSummary(rows: readonly SummaryRow[]): Guideline[] {
  const line = (r: SummaryRow) =>
    [
      r.characteristic, r.speciation ?? '', r.fraction ?? '', r.parameter ?? r.characteristic, r.region ?? 'CA', r.publisher ?? 'CCME', '', 'Approved',
      r.media ?? 'Water', r.ecosystem ?? 'Freshwater', r.level ?? 'Chronic', r.value, r.unit ?? 'mg/L', r.notes ?? '', '', '', '', '', '',
    ].map(quoted).join(',');
  return loadGuidelines(`${summaryHeader}\n${rows.map(line).join('\n')}\n`, []);
}

/** Rows of a query as plain objects, BIGINT as number. */
export async function rowsOf(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await all(conn, sql)).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { columnNames, metadataFields, STORAGE_SCHEMA_VERSION, type FieldType } from '../schemas/index.js';
import { newPublicationId } from '../schemas/publication.js';
import { list } from './build-tables.js';
import { run, scalarNumber } from './db.js';
import { writeDatasetSearch } from './dataset-search.js';
import { writeLocationSummaries } from './location-summaries.js';
import { writeMeta, type MetaValues } from './meta-rows.js';
import { writeUnitConversions } from './unit-conversions.js';
import { ident } from './sql.js';
import type { IngestBuild, LoadPart, SourceDataset, StatisticsPart } from './stage-parts.js';

/**
 * Stage 5 (statistics): the ordered writes of the small tables once every observation is in: observation_stats
 * (accumulated per dataset by load), observation_value_stats (the same split by ResultUnit, with the values' count,
 * sum, min and max, read from the build's observations), its rollups, locations with their observation Id ranges, location_regions, datasets
 * with TemporalExtent, dataset_search (dataset-search.ts), unit_conversions (unit-conversions.ts) and location_summaries
 * (location-summaries.ts), and tributary_meta (meta-rows.ts).
 */

/** The loaded datasets into all_datasets, then every small table in order, under a new publication id. */
export async function statistics(build: IngestBuild, loaded: LoadPart): Promise<StatisticsPart> {
  for (const d of loaded.loaded) await addDataset(build.conn, d.ds, d);
  const meta = { maxObservationId: loaded.maxObservationId, maxLocationId: loaded.maxLocationId, publicationId: newPublicationId() };
  await writeStatistics(build.conn, meta, STORAGE_SCHEMA_VERSION);
  return { meta };
}

/** A metadata.json value as a bound parameter plus its SQL cast, by catalogue type. */
function metadataParam(type: FieldType, value: unknown): { value: DuckDBValue; sql: (p: string) => string } {
  if (value === undefined || value === null) return { value: null, sql: (p) => p };
  switch (type) {
    case 'uuid':
      return { value: String(value), sql: (p) => `CAST(${p} AS UUID)` };
    case 'timestamp':
      // Stored in UTC: an offset is applied here, once, rather than left to each reader.
      return { value: new Date(String(value)).toISOString().slice(0, 23), sql: (p) => `CAST(${p} AS TIMESTAMP)` };
    case 'string[]':
      return { value: listValue((value as string[]).map(String)), sql: (p) => `CAST(${p} AS VARCHAR[])` };
    default:
      return { value: String(value), sql: (p) => `CAST(${p} AS VARCHAR)` };
  }
}

/** Adds one loaded dataset to `all_datasets`; TemporalExtent from its observations (an Id range). */
export async function addDataset(conn: DuckDBConnection, ds: SourceDataset, ids: { readonly from: number; readonly to: number }): Promise<void> {
  const params: DuckDBValue[] = [ids.from, ids.to];
  const exprs = columnNames('datasets').map((column) => {
    if (column === 'TemporalExtent') return `(SELECT [min("ActivityStartDate"), max("ActivityStartDate")] FROM observations WHERE "Id" BETWEEN $1 AND $2)`;
    const value = column === 'content_hash' ? ds.contentHash : (ds.metadata as Record<string, unknown>)[column];
    const field = metadataFields.find((f) => f.column === column);
    const p = metadataParam(field?.type ?? 'string', value);
    params.push(p.value);
    return p.sql(`$${params.length}`);
  });
  await run(conn, `INSERT INTO all_datasets (${list(columnNames('datasets'))}) SELECT ${exprs.join(', ')}`, params);
}

/** Writes the final small tables in their documented physical order; checks that Id ranges are contiguous. */
export async function writeStatistics(conn: DuckDBConnection, meta: MetaValues, schemaVersion: string): Promise<void> {
  const statKeys = ['LocationId', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'ActivityStartYear'];
  await run(conn, `INSERT INTO observation_stats SELECT ${list(columnNames('observation_stats'))} FROM all_stats ORDER BY ${list(statKeys)}`);
  await writeValueStatistics(conn);
  const rollupKeys = columnNames('observation_rollup').filter((c) => c !== 'n');
  const rollupValues = rollupKeys.map((c) => (c === 'DOI' || c === 'MonitoringLocationType' ? `l.${ident(c)}` : `s.${ident(c)}`)).join(', ');
  await run(
    conn,
    `INSERT INTO observation_rollup SELECT ${rollupValues}, sum(s.n)
     FROM all_stats s JOIN all_locations l ON l."Id" = s."LocationId" GROUP BY ALL ORDER BY ${list(rollupKeys)}`,
  );
  await run(
    conn,
    `INSERT INTO observation_region_rollup SELECT m."RegionId", ${rollupValues}, sum(s.n)
     FROM all_stats s JOIN all_locations l ON l."Id" = s."LocationId" JOIN (SELECT DISTINCT "LocationId", "RegionId" FROM all_regions) m ON m."LocationId" = s."LocationId"
     GROUP BY ALL ORDER BY "RegionId", ${list(rollupKeys)}`,
  );
  await run(
    conn,
    `CREATE TEMP TABLE location_ranges AS SELECT "LocationId", min(min_id) AS first_obs_id, max(max_id) AS last_obs_id, sum(n) AS n
     FROM all_stats GROUP BY "LocationId"`,
  );
  const broken = await scalarNumber(conn, 'SELECT count(*) FROM location_ranges WHERE last_obs_id - first_obs_id + 1 <> n');
  if (broken > 0) throw new Error(`internal error: ${broken} location(s) have non-contiguous observation Ids; nothing published`);
  const cols = columnNames('locations').map((c) => (c === 'first_obs_id' || c === 'last_obs_id' ? `r.${c}` : `l.${ident(c)}`));
  const inserted = await run(
    conn,
    `INSERT INTO locations SELECT ${cols.join(', ')} FROM all_locations l JOIN location_ranges r ON r."LocationId" = l."Id" ORDER BY l."Id"`,
  );
  const expected = await scalarNumber(conn, 'SELECT count(*) FROM all_locations');
  if (inserted !== expected) throw new Error(`internal error: ${expected - inserted} location(s) without observations; nothing published`);
  await run(conn, `INSERT INTO location_regions SELECT "LocationId", "RegionId" FROM all_regions ORDER BY "RegionId", "LocationId"`);
  await run(conn, `INSERT INTO datasets SELECT ${list(columnNames('datasets'))} FROM all_datasets ORDER BY CAST("Id" AS VARCHAR)`);
  await writeUnitConversions(conn);
  await writeDatasetSearch(conn);
  await writeLocationSummaries(conn);
  await writeMeta(conn, meta, schemaVersion);
}

/**
 * observation_value_stats from the build's observations (all of a first build or a compaction, the delta's alone
 * when merged onto a hub: merge.ts appends it), ordered as observation_stats: by location, then the keys. The
 * observations hold exactly what is published by now (load deleted its rejects), so no second accumulator is kept.
 */
async function writeValueStatistics(conn: DuckDBConnection): Promise<void> {
  const keys = ['LocationId', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'ActivityStartYear', 'ResultUnit'];
  await run(
    conn,
    `INSERT INTO observation_value_stats (${list(columnNames('observation_value_stats'))})
     SELECT ${list(keys)}, count(*), count("ResultValue"), sum("ResultValue"), min("ResultValue"), max("ResultValue")
     FROM observations GROUP BY ${list(keys)} ORDER BY ${list(keys)} NULLS FIRST`,
  );
}

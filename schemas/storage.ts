import type { FieldDef, FieldType } from './field.js';
import { locationFields } from './location-fields.js';
import { metadataFields } from './metadata-fields.js';
import { observationFields } from './observation-fields.js';
import { recordFields } from './record-fields.js';

/** DuckDB column type of each logical type. */
export const duckdbTypes: Readonly<Record<FieldType, string>> = {
  uuid: 'UUID',
  string: 'VARCHAR',
  integer: 'BIGINT',
  number: 'DOUBLE',
  date: 'DATE',
  time: 'TIME',
  timestamp: 'TIMESTAMP',
  'string[]': 'VARCHAR[]',
  'date[]': 'DATE[]',
};

export interface ColumnDef {
  readonly column: string;
  readonly sqlType: string;
  readonly nullable: boolean;
}

function columnsOf(fields: readonly FieldDef[]): ColumnDef[] {
  const seen = new Map<string, ColumnDef>();
  for (const f of fields) {
    if (!seen.has(f.column)) seen.set(f.column, { column: f.column, sqlType: duckdbTypes[f.type], nullable: f.nullable });
  }
  return [...seen.values()];
}

/** The observation-level part of every statistics table's key, and the row count each of them keeps. */
const observationKey = [
  { column: 'CharacteristicName', sqlType: 'VARCHAR', nullable: false },
  { column: 'ActivityMediaName', sqlType: 'VARCHAR', nullable: false },
  { column: 'ActivityGroupType', sqlType: 'VARCHAR', nullable: false },
  { column: 'ActivityStartYear', sqlType: 'INTEGER', nullable: false },
] as const satisfies readonly ColumnDef[];
const rowCount = { column: 'n', sqlType: 'BIGINT', nullable: false } as const satisfies ColumnDef;

/** observation_rollup's key and count; the region rollup is the same with RegionId first. */
const rollupColumns = [
  { column: 'DOI', sqlType: 'VARCHAR', nullable: false },
  { column: 'MonitoringLocationType', sqlType: 'VARCHAR', nullable: false },
  ...observationKey,
  rowCount,
] as const satisfies readonly ColumnDef[];

/**
 * The tables of the published DuckDB file (docs/storage.md), derived from the catalogue: ingest creates exactly
 * these, the API reads nothing else.
 */
export const storageTables = {
  datasets: [...columnsOf(metadataFields), { column: 'content_hash', sqlType: 'VARCHAR', nullable: false }],
  locations: [
    ...columnsOf(locationFields),
    { column: 'first_obs_id', sqlType: 'BIGINT', nullable: false },
    { column: 'last_obs_id', sqlType: 'BIGINT', nullable: false },
  ],
  location_regions: [
    { column: 'LocationId', sqlType: 'BIGINT', nullable: false },
    { column: 'RegionId', sqlType: 'VARCHAR', nullable: false },
  ],
  // Observations and Records share one wide table; order: the Record columns, then LocationId and the
  // filter-only derived columns.
  observations: [
    ...columnsOf([...recordFields, ...observationFields]),
    { column: 'ActivityStartYear', sqlType: 'INTEGER', nullable: false },
    { column: 'ActivityGroupType', sqlType: 'VARCHAR', nullable: false },
  ],
  observation_stats: [
    { column: 'LocationId', sqlType: 'BIGINT', nullable: false },
    ...observationKey,
    rowCount,
    { column: 'min_id', sqlType: 'BIGINT', nullable: false },
    { column: 'max_id', sqlType: 'BIGINT', nullable: false },
  ],
  // observation_stats without the location: a few thousand rows answer counts and $apply that need no
  // location-level dimension (LocationId, RegionId).
  observation_rollup: rollupColumns,
  // The rollup once per region of each location: a count with one `RegionId eq` (or an $apply grouped by RegionId)
  // and otherwise rollup dimensions sums the rollup's rows instead of semi-joining the far larger statistics table
  // to the region's locations.
  observation_region_rollup: [{ column: 'RegionId', sqlType: 'VARCHAR', nullable: false }, ...rollupColumns],
  tributary_meta: [
    { column: 'key', sqlType: 'VARCHAR', nullable: false },
    { column: 'value', sqlType: 'VARCHAR', nullable: false },
  ],
} as const satisfies Record<string, readonly ColumnDef[]>;

export type StorageTable = keyof typeof storageTables;

/** Schema version written to `tributary_meta`; the API refuses a file of another version. */
/** A table's column names, in storage order. */
export function columnNames(table: StorageTable): string[] {
  return storageTables[table].map((c) => c.column);
}

export const STORAGE_SCHEMA_VERSION = '4';

/** `CREATE TABLE` for one storage table. Identifiers come from the catalogue only. */
export function createTableSql(table: StorageTable): string {
  const cols = storageTables[table].map((c) => `"${c.column}" ${c.sqlType}${c.nullable ? '' : ' NOT NULL'}`);
  return `CREATE TABLE "${table}" (${cols.join(', ')})`;
}

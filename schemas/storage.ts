import type { FieldDef, FieldType } from './field.js';
import { guidelineComparisonFields } from './guideline-comparison-fields.js';
import { guidelineFields } from './guideline-fields.js';
import { UNIT_CONVERSION_COLUMNS } from './km-sql.js';
import { locationFields } from './location-fields.js';
import { locationSummaryFields } from './location-summary-fields.js';
import { metadataFields } from './metadata-fields.js';
import { observationFields } from './observation-fields.js';
import { recordFields } from './record-fields.js';
import { trendFields } from './trend-fields.js';
import { waterQualityIndexFields } from './water-quality-index-fields.js';

/** DuckDB column type of each logical type. */
export const duckdbTypes: Readonly<Record<FieldType, string>> = {
  uuid: 'UUID',
  string: 'VARCHAR',
  integer: 'BIGINT',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'DATE',
  time: 'TIME',
  timestamp: 'TIMESTAMP',
  'string[]': 'VARCHAR[]',
  'date[]': 'DATE[]',
  'integer[]': 'BIGINT[]',
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

/**
 * The columns that relate the tables to one another (docs/storage.md's diagram), named once: the definitions below
 * and every query that joins, links or bounds the tables use these. `Id` and `DOI` of the served tables come from
 * the field catalogue; schemas/storage.test.ts checks they are where these names say.
 */
export const storageKeys = {
  /** Each served table's key: BIGINT on observations and locations, UUID on datasets. */
  id: 'Id',
  /** The dataset a location, an observation or a rollup row belongs to. */
  doi: 'DOI',
  /** The location an observation, a statistics row or a region membership belongs to. */
  locationId: 'LocationId',
  /** A region a location lies in: location_regions, and the region rollup's first key column. */
  regionId: 'RegionId',
  /** The observations a statistics row counts. */
  count: 'n',
  /** A location's observations are the Ids first_obs_id … last_obs_id. */
  firstObsId: 'first_obs_id',
  lastObsId: 'last_obs_id',
} as const;

/** The observation-level part of every statistics table's key, and the row count each of them keeps. */
const observationKey = [
  { column: 'CharacteristicName', sqlType: 'VARCHAR', nullable: false },
  { column: 'ActivityMediaName', sqlType: 'VARCHAR', nullable: false },
  { column: 'ActivityGroupType', sqlType: 'VARCHAR', nullable: false },
  { column: 'ActivityStartYear', sqlType: 'INTEGER', nullable: false },
] as const satisfies readonly ColumnDef[];
const rowCount = { column: storageKeys.count, sqlType: 'BIGINT', nullable: false } as const satisfies ColumnDef;

/** The comparisons' statistics' keys (issue 45): first the location's and the characteristic… */
const comparisonLocationKey = [
  { column: storageKeys.locationId, sqlType: 'BIGINT', nullable: false },
  { column: storageKeys.doi, sqlType: 'VARCHAR', nullable: false },
  { column: 'MonitoringLocationType', sqlType: 'VARCHAR', nullable: false },
  { column: 'CharacteristicName', sqlType: 'VARCHAR', nullable: false },
] as const satisfies readonly ColumnDef[];
/** …then the guideline's, the Verdict and whether it governs. */
const comparisonGuidelineKey = [
  { column: 'GuidelineId', sqlType: 'BIGINT', nullable: false },
  { column: 'Publisher', sqlType: 'VARCHAR', nullable: false },
  { column: 'ProtectionLevel', sqlType: 'VARCHAR', nullable: false },
  { column: 'Term', sqlType: 'VARCHAR', nullable: false },
  { column: 'Verdict', sqlType: 'VARCHAR', nullable: false },
  { column: 'Governing', sqlType: 'BOOLEAN', nullable: false },
] as const satisfies readonly ColumnDef[];

/** observation_rollup's key and count; the region rollup is the same with RegionId first. */
const rollupColumns = [
  { column: storageKeys.doi, sqlType: 'VARCHAR', nullable: false },
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
    { column: storageKeys.firstObsId, sqlType: 'BIGINT', nullable: false },
    { column: storageKeys.lastObsId, sqlType: 'BIGINT', nullable: false },
  ],
  location_regions: [
    { column: storageKeys.locationId, sqlType: 'BIGINT', nullable: false },
    { column: storageKeys.regionId, sqlType: 'VARCHAR', nullable: false },
  ],
  // Observations and Records share one wide table; order: the Record columns, then LocationId and the
  // filter-only derived columns.
  observations: [
    ...columnsOf([...recordFields, ...observationFields]),
    { column: 'ActivityStartYear', sqlType: 'INTEGER', nullable: false },
    { column: 'ActivityGroupType', sqlType: 'VARCHAR', nullable: false },
  ],
  observation_stats: [
    { column: storageKeys.locationId, sqlType: 'BIGINT', nullable: false },
    ...observationKey,
    rowCount,
    { column: 'min_id', sqlType: 'BIGINT', nullable: false },
    { column: 'max_id', sqlType: 'BIGINT', nullable: false },
  ],
  // observation_stats split by ResultUnit, with what $apply's sum, min, max and average of ResultValue read instead of
  // the rows (docs/storage.md): value_n counts the rows with a value (the others are non-detects), value_sum, value_min
  // and value_max are over those; null when a key has no value.
  observation_value_stats: [
    { column: storageKeys.locationId, sqlType: 'BIGINT', nullable: false },
    ...observationKey,
    { column: 'ResultUnit', sqlType: 'VARCHAR', nullable: true },
    rowCount,
    { column: 'value_n', sqlType: 'BIGINT', nullable: false },
    { column: 'value_sum', sqlType: 'DOUBLE', nullable: true },
    { column: 'value_min', sqlType: 'DOUBLE', nullable: true },
    { column: 'value_max', sqlType: 'DOUBLE', nullable: true },
  ],
  // observation_stats without the location: a few thousand rows answer counts and $apply that need no
  // location-level dimension (LocationId, RegionId).
  observation_rollup: rollupColumns,
  // The rollup once per region of each location: a count with one `RegionId eq` (or an $apply grouped by RegionId)
  // and otherwise rollup dimensions sums the rollup's rows instead of semi-joining the far larger statistics table
  // to the region's locations.
  observation_region_rollup: [{ column: storageKeys.regionId, sqlType: 'VARCHAR', nullable: false }, ...rollupColumns],
  // One row per location × CharacteristicName × ResultSampleFraction × MethodSpeciation × unit (issue 48; issue 52: a
  // non-detect without a ResultUnit in its limit's unit, quality control left out), in Id order: built by the
  // statistics stage from a build's observations, so a delta holds its datasets' rows alone.
  location_summaries: columnsOf(locationSummaryFields),
  // Issue 52. UCUM's conversion (to = from × factor + offset) of every pair a non-detect's limit unit → its ResultUnit
  // the observations hold, written by ingest (the units library stays there) for the statistics both sides compute
  // from schemas/km-sql.ts: the summaries at publish, $apply's km methods in the API. A pair UCUM does not convert has
  // no row. A merge adds the delta's pairs; a pair of a removed dataset stays (a factor, harmless) until compaction.
  unit_conversions: [
    { column: UNIT_CONVERSION_COLUMNS.fromUnit, sqlType: 'VARCHAR', nullable: false },
    { column: UNIT_CONVERSION_COLUMNS.toUnit, sqlType: 'VARCHAR', nullable: false },
    { column: UNIT_CONVERSION_COLUMNS.factor, sqlType: 'DOUBLE', nullable: false },
    { column: UNIT_CONVERSION_COLUMNS.offset, sqlType: 'DOUBLE', nullable: false },
  ],
  // Issue 45. The guideline summary as served (ingest/guidelines/), replaced whole by each publish.
  guidelines: columnsOf(guidelineFields),
  // One row per observation × applicable guideline, in Id order (ObservationId × 4096 + GuidelineId), so a dataset's
  // rows are one Id range like its observations. The three dimension columns after the served fields are stored,
  // not served: the location's type and the observation's medium and group, so that comparisons filter by them
  // without a join.
  guideline_comparisons: [
    ...columnsOf(guidelineComparisonFields),
    { column: 'MonitoringLocationType', sqlType: 'VARCHAR', nullable: false },
    { column: 'ActivityMediaName', sqlType: 'VARCHAR', nullable: false },
    { column: 'ActivityGroupType', sqlType: 'VARCHAR', nullable: false },
  ],
  // The comparisons counted by what users filter and group them on (issue 45: their counts come from statistics like
  // the observations'), one row per location × observation key × guideline × Verdict, ordered by those keys
  // (LocationId first, so a merge appends a delta's rows in order). DOI and MonitoringLocationType follow from the
  // location, Publisher and ProtectionLevel from the guideline: kept so that filters on them need no join.
  guideline_comparison_stats: [
    ...comparisonLocationKey,
    { column: 'ActivityMediaName', sqlType: 'VARCHAR', nullable: false },
    { column: 'ActivityGroupType', sqlType: 'VARCHAR', nullable: false },
    { column: 'ActivityStartYear', sqlType: 'BIGINT', nullable: false },
    ...comparisonGuidelineKey,
    rowCount,
  ],
  // The same over every year, medium and group: one row per location × characteristic × guideline × Verdict, a
  // fraction of the statistics' rows, for counts and groups by location that name none of those.
  guideline_comparison_totals: [...comparisonLocationKey, ...comparisonGuidelineKey, rowCount],
  // The CCME Water Quality Index per location, year and publisher, ordered by LocationId, Year, Publisher.
  water_quality_index: columnsOf(waterQualityIndexFields),
  // Issue 54. One row per series × period (../shared/trends/README.md), in Id order (LocationId × 65536 + rank): built by
  // the trends stage for the changed datasets' series, so a merge drops a leaving dataset's rows by DOI and appends the
  // delta's, unless the end year or the periods moved (then the delta holds every series and replaces the table).
  trends: columnsOf(trendFields),
  // search_datasets' index (issue 56 item 4), one row per dataset in DOI order: its words lower-cased by where they
  // come from (name, keywords, organisations; SearchText all of them and the abstract, one per line), and its
  // locations' bounding box. Written by the statistics stage; a merge drops a dataset's row by DOI and appends the
  // delta's, then rewrites the table in DOI order.
  dataset_search: [
    { column: 'DatasetId', sqlType: 'UUID', nullable: false },
    { column: storageKeys.doi, sqlType: 'VARCHAR', nullable: false },
    { column: 'NameText', sqlType: 'VARCHAR', nullable: false },
    { column: 'KeywordText', sqlType: 'VARCHAR', nullable: false },
    { column: 'OrganisationText', sqlType: 'VARCHAR', nullable: false },
    { column: 'SearchText', sqlType: 'VARCHAR', nullable: false },
    { column: 'West', sqlType: 'DOUBLE', nullable: true },
    { column: 'South', sqlType: 'DOUBLE', nullable: true },
    { column: 'East', sqlType: 'DOUBLE', nullable: true },
    { column: 'North', sqlType: 'DOUBLE', nullable: true },
  ],
  tributary_meta: [
    { column: 'key', sqlType: 'VARCHAR', nullable: false },
    { column: 'value', sqlType: 'VARCHAR', nullable: false },
  ],
  // The bulk files this publication serves and where it came from (schemas/publication-files.ts, the contract with
  // the API): one row per dataset and format, naming the content-addressed file by its hash.
  dataset_files: [
    { column: storageKeys.doi, sqlType: 'VARCHAR', nullable: false },
    { column: 'Format', sqlType: 'VARCHAR', nullable: false },
    { column: 'Sha256', sqlType: 'VARCHAR', nullable: false },
    { column: 'Bytes', sqlType: 'BIGINT', nullable: false },
    { column: 'Rows', sqlType: 'BIGINT', nullable: false },
    { column: 'PublicationId', sqlType: 'VARCHAR', nullable: false },
  ],
  // Every publication this file descends from, itself included: carried forward by each publish.
  publication_history: [
    { column: 'PublicationId', sqlType: 'VARCHAR', nullable: false },
    { column: 'CreatedAt', sqlType: 'TIMESTAMP', nullable: false },
    { column: 'Parent', sqlType: 'VARCHAR', nullable: true },
  ],
  // What each publication of the history added, replaced or removed, one row per dataset.
  publication_changes: [
    { column: 'PublicationId', sqlType: 'VARCHAR', nullable: false },
    { column: storageKeys.doi, sqlType: 'VARCHAR', nullable: false },
    { column: 'DatasetName', sqlType: 'VARCHAR', nullable: false },
    { column: 'Change', sqlType: 'VARCHAR', nullable: false },
  ],
} as const satisfies Record<string, readonly ColumnDef[]>;

export type StorageTable = keyof typeof storageTables;

/** The column holding a location's Id in each table that has one: how a table is narrowed to locations. */
export const locationIdColumns = {
  locations: storageKeys.id,
  observations: storageKeys.locationId,
  observation_stats: storageKeys.locationId,
  observation_value_stats: storageKeys.locationId,
  location_regions: storageKeys.locationId,
  location_summaries: storageKeys.locationId,
  guideline_comparisons: storageKeys.locationId,
  guideline_comparison_stats: storageKeys.locationId,
  guideline_comparison_totals: storageKeys.locationId,
  water_quality_index: storageKeys.locationId,
  trends: storageKeys.locationId,
} as const satisfies Partial<Record<StorageTable, string>>;

/**
 * The WGS 84 point of a row, in the tables whose rows have one: a location's own, or on an observation the
 * location's coordinates as denormalised into it. OGC API – Features writes them as each feature's geometry.
 */
export const pointColumns = {
  locations: { longitude: 'Longitude', latitude: 'Latitude' },
  observations: { longitude: 'MonitoringLocationLongitude', latitude: 'MonitoringLocationLatitude' },
} as const satisfies Partial<Record<StorageTable, { readonly longitude: string; readonly latitude: string }>>;

/** A table's column names, in storage order. */
export function columnNames(table: StorageTable): string[] {
  return storageTables[table].map((c) => c.column);
}

/** Schema version written to `tributary_meta`; the API refuses a file of another version. */
export const STORAGE_SCHEMA_VERSION = '10';

/** `CREATE TABLE` for one storage table. Identifiers come from the catalogue only. */
export function createTableSql(table: StorageTable): string {
  const cols = storageTables[table].map((c) => `"${c.column}" ${c.sqlType}${c.nullable ? '' : ' NOT NULL'}`);
  return `CREATE TABLE "${table}" (${cols.join(', ')})`;
}

/**
 * The queries behind the landing pages and the catalogues (pages/register-pages.ts): the datasets with their
 * locations' extent, each dataset's characteristics with exact counts (from the statistics ingest builds), and
 * the locations by Id, a dataset, or a window of Ids. The small tables are read whole once per snapshot
 * (exec/landing.ts); a location or a dataset's locations are read per request, by key.
 */
import { metadataFields, pointColumns, storageKeys } from '../../../schemas/index.js';
import { DATASETS, LOCATIONS, OBSERVATIONS, RESOURCE, ROLLUP, STATS, sourceColumn, sourceTable } from './source.js';
import { column, ident, Params, type CompiledQuery } from './sql.js';

/** The datasets' text fields a landing page shows, by their /Metadata names. */
export const DATASET_TEXT = [
  'DOI', 'DatasetName', 'Version', 'Abstract', 'DataCollectionOrganization', 'DataUploadOrganization', 'DataStewardEmail',
  'Licence', 'Citation', 'DataSourceURL', 'FundingSources', 'ProgressCode', 'MaintenanceFrequencyCode',
] as const;

const metadataColumn = (name: string) => {
  const field = metadataFields.find((f) => f.name === name);
  if (!field) throw new Error(`no Metadata field ${name}`);
  return sourceColumn(DATASETS, field.column);
};
/** The per-dataset aggregate of the locations, joined under its own alias. */
const EXTENT_ALIAS = 'g';

/**
 * Every dataset with its text fields, its lists as JSON, its dates as text, and its locations' count and bounding box.
 *
 * @example
 * compileLandingDatasets().sql
 * // SELECT d."DOI" AS "DOI", … to_json(d."Keywords")::VARCHAR AS "Keywords", … g."locations", g."west", … FROM "datasets" d LEFT JOIN (SELECT l."DOI", count(*) AS "locations", … GROUP BY l."DOI") g ON g."DOI" = d."DOI" ORDER BY d."DOI"
 */
export function compileLandingDatasets(): CompiledQuery {
  const { longitude, latitude } = pointColumns.locations;
  const l = (name: string) => sourceColumn(LOCATIONS, name);
  const g = (name: string) => column(EXTENT_ALIAS, name);
  const text = DATASET_TEXT.map((n) => `${metadataColumn(n)} AS ${ident(n)}`);
  const lists = ['Keywords', 'TopicCategoryCode', 'TemporalExtent'].map((n) => `to_json(${metadataColumn(n)})::VARCHAR AS ${ident(n)}`);
  const times = ['CreateTimestamp', 'PublishedTimestamp'].map((n) => `strftime(${metadataColumn(n)}, '%Y-%m-%dT%H:%M:%SZ') AS ${ident(n)}`);
  const extent =
    `SELECT ${l(storageKeys.doi)}, count(*) AS ${ident('locations')}, min(${l(longitude)}) AS ${ident('west')}, min(${l(latitude)}) AS ${ident('south')}, ` +
    `max(${l(longitude)}) AS ${ident('east')}, max(${l(latitude)}) AS ${ident('north')} FROM ${sourceTable(LOCATIONS)} GROUP BY ${l(storageKeys.doi)}`;
  return {
    sql:
      `SELECT ${[...text, `CAST(${metadataColumn('Id')} AS VARCHAR) AS ${ident('Id')}`, ...lists, ...times].join(', ')}, ` +
      `${['locations', 'west', 'south', 'east', 'north'].map(g).join(', ')} ` +
      `FROM ${sourceTable(DATASETS)} LEFT JOIN (${extent}) ${EXTENT_ALIAS} ON ${g(storageKeys.doi)} = ${sourceColumn(DATASETS, storageKeys.doi)} ` +
      `ORDER BY ${sourceColumn(DATASETS, storageKeys.doi)}`,
    params: [],
  };
}

/** Each dataset's characteristics with their exact observation counts, from the rollup the statistics stage wrote. */
export function compileDatasetCharacteristics(): CompiledQuery {
  const r = (name: string) => sourceColumn(ROLLUP, name);
  return {
    sql:
      `SELECT ${r(storageKeys.doi)}, ${r('CharacteristicName')}, sum(${r(storageKeys.count)})::BIGINT AS ${ident('n')} ` +
      `FROM ${sourceTable(ROLLUP)} GROUP BY ${r(storageKeys.doi)}, ${r('CharacteristicName')} ORDER BY ${r(storageKeys.doi)}, ${r('CharacteristicName')}`,
    params: [],
  };
}

/** What a page and the dump say of one location. */
const LOCATION_COLUMNS = [storageKeys.id, storageKeys.doi, 'MonitoringLocationID', 'Name', 'Latitude', 'Longitude', 'HorizontalCoordinateReferenceSystem', 'MonitoringLocationType', storageKeys.firstObsId, storageKeys.lastObsId] as const;
const locationSelect = () => `SELECT ${LOCATION_COLUMNS.map((c) => sourceColumn(LOCATIONS, c)).join(', ')} FROM ${sourceTable(LOCATIONS)}`;
const byId = () => `ORDER BY ${sourceColumn(LOCATIONS, storageKeys.id)}`;

/** One location by its Id. */
export function compileLocation(id: bigint): CompiledQuery {
  const p = new Params();
  return { sql: `${locationSelect()} WHERE ${sourceColumn(LOCATIONS, storageKeys.id)} = ${p.bind({ sqlType: 'BIGINT', value: id })}`, params: p.values };
}

/** A dataset's locations in Id order, at most `limit`. */
export function compileDatasetLocations(doi: string, limit: number): CompiledQuery {
  const p = new Params();
  const where = `${sourceColumn(LOCATIONS, storageKeys.doi)} = ${p.bind({ sqlType: 'VARCHAR', value: doi })}`;
  return { sql: `${locationSelect()} WHERE ${where} ${byId()} LIMIT ${p.bind({ sqlType: 'BIGINT', value: limit })}`, params: p.values };
}

/** The next `limit` locations after Id `after`: the dump and the sitemaps walk the table with it, a window at a time. */
export function compileLocationWindow(after: bigint, limit: number): CompiledQuery {
  const p = new Params();
  const where = `${sourceColumn(LOCATIONS, storageKeys.id)} > ${p.bind({ sqlType: 'BIGINT', value: after })}`;
  return { sql: `${locationSelect()} WHERE ${where} ${byId()} LIMIT ${p.bind({ sqlType: 'BIGINT', value: limit })}`, params: p.values };
}

/** The Id and dataset of the locations `offset` … `offset + limit - 1` in Id order: one sitemap's share. */
export function compileLocationSlice(offset: number, limit: number): CompiledQuery {
  const p = new Params();
  const cols = [storageKeys.id, storageKeys.doi].map((c) => sourceColumn(LOCATIONS, c)).join(', ');
  return {
    sql: `SELECT ${cols} FROM ${sourceTable(LOCATIONS)} ${byId()} LIMIT ${p.bind({ sqlType: 'BIGINT', value: limit })} OFFSET ${p.bind({ sqlType: 'BIGINT', value: offset })}`,
    params: p.values,
  };
}

/** The characteristics measured at the locations `first` … `last` with their exact counts, from the statistics table. */
export function compileLocationCharacteristics(first: bigint, last: bigint): CompiledQuery {
  const p = new Params();
  const s = (name: string) => sourceColumn(STATS, name);
  const [from, to] = [p.bind({ sqlType: 'BIGINT', value: first }), p.bind({ sqlType: 'BIGINT', value: last })];
  return {
    sql:
      `SELECT ${s(storageKeys.locationId)}, ${s('CharacteristicName')}, sum(${s(storageKeys.count)})::BIGINT AS ${ident('n')} FROM ${sourceTable(STATS)} ` +
      `WHERE ${s(storageKeys.locationId)} BETWEEN ${from} AND ${to} GROUP BY ${s(storageKeys.locationId)}, ${s('CharacteristicName')} ` +
      `ORDER BY ${s(storageKeys.locationId)}, ${s('CharacteristicName')}`,
    params: p.values,
  };
}

/**
 * The first and last ActivityStartDate of one location: its observations are the Ids first_obs_id … last_obs_id,
 * so DuckDB reads only the row groups of that range.
 */
export function compileLocationDates(firstObsId: bigint, lastObsId: bigint): CompiledQuery {
  const p = new Params();
  const o = (name: string) => sourceColumn(OBSERVATIONS, name);
  const [from, to] = [p.bind({ sqlType: 'BIGINT', value: firstObsId }), p.bind({ sqlType: 'BIGINT', value: lastObsId })];
  return {
    sql:
      `SELECT strftime(min(${o('ActivityStartDate')}), '%Y-%m-%d') AS ${ident('first_date')}, strftime(max(${o('ActivityStartDate')}), '%Y-%m-%d') AS ${ident('last_date')} ` +
      `FROM ${sourceTable(OBSERVATIONS)} WHERE ${o(storageKeys.id)} BETWEEN ${from} AND ${to}`,
    params: p.values,
  };
}

/** The LocationSummaries fields a location's page shows: text and numbers as stored, dates as text. */
export const SUMMARY_VALUES = [
  'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit', 'Count', 'NonDetects', 'MethodReason',
  'MinQualifier', 'Min', 'P10Qualifier', 'P10', 'MedianQualifier', 'Median', 'P90Qualifier', 'P90', 'MaxQualifier', 'Max',
  'LatestValue', 'LatestDetectionCondition',
] as const;
export const SUMMARY_DATES = ['FirstDate', 'LastDate', 'LatestDate'] as const;

/**
 * One location's summaries (LocationSummaries) in Id order: its rows are one Id range (LocationId × 65536 + rank),
 * so the filter on LocationId reads a few rows of one row group.
 */
export function compileLocationSummaries(id: bigint): CompiledQuery {
  const p = new Params();
  const u = (name: string) => sourceColumn(RESOURCE.location_summaries, name);
  const values = SUMMARY_VALUES.map((n) => `${u(n)} AS ${ident(n)}`);
  const dates = SUMMARY_DATES.map((n) => `strftime(${u(n)}, '%Y-%m-%d') AS ${ident(n)}`);
  return {
    sql:
      `SELECT ${[...values, ...dates].join(', ')} FROM ${sourceTable(RESOURCE.location_summaries)} ` +
      `WHERE ${u(storageKeys.locationId)} = ${p.bind({ sqlType: 'BIGINT', value: id })} ORDER BY ${u(storageKeys.id)}`,
    params: p.values,
  };
}

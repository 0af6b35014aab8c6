/**
 * Test support: DataStream dataset folders (metadata.json and one CSV in the upload schema) written from compact
 * observation specs, for the trend tests to ingest with the real ingest. A value is written as the upload schema
 * carries it: `12.3` a result, `<0.01` a non-detect with its limit, `>2419.6` an over-range value, `ND` a "Not
 * Detected" without a limit.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface TestObservation {
  readonly location: string;
  readonly characteristic: string;
  /** YYYY-MM-DD */
  readonly date: string;
  readonly time?: string;
  readonly value: string;
  readonly unit: string;
  readonly fraction?: string;
  readonly speciation?: string;
  /** Default `Field Msr/Obs`; a `Quality Control…` type makes it a quality-control result. */
  readonly activityType?: string;
  /** A non-detect written without ResultUnit (its unit only on the limit), as many labs do. Default true. */
  readonly limitUnitOnly?: boolean;
}

export interface TestDataset {
  readonly folder: string;
  readonly doi: string;
  readonly name: string;
  readonly observations: readonly TestObservation[];
  /** Each location's type and point; default River/Stream in Alberta. */
  readonly locations?: Readonly<Record<string, { readonly type?: string; readonly latitude: number; readonly longitude: number }>>;
}

const COLUMNS = [
  'DatasetName', 'MonitoringLocationID', 'MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude',
  'MonitoringLocationHorizontalCoordinateReferenceSystem', 'MonitoringLocationType', 'ActivityType', 'ActivityMediaName', 'ActivityStartDate',
  'ActivityStartTime', 'CharacteristicName', 'MethodSpeciation', 'ResultSampleFraction', 'ResultValue', 'ResultUnit', 'ResultValueType',
  'ResultDetectionCondition', 'ResultDetectionQuantitationLimitMeasure', 'ResultDetectionQuantitationLimitUnit', 'ResultDetectionQuantitationLimitType',
  'ResultStatusID', 'LaboratoryName', 'ResultAnalyticalMethodName',
] as const;

type Row = Partial<Record<(typeof COLUMNS)[number], string>>;

/** RFC 4180: a field with a comma, a quote or a line break quoted, its quotes doubled. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** The result columns of a value spec. */
function resultColumns(o: TestObservation): Row {
  if (o.value === 'ND') return { ResultDetectionCondition: 'Not Detected' };
  const censored = /^([<>])(.+)$/.exec(o.value);
  if (!censored) return { ResultValue: o.value, ResultUnit: o.unit };
  return {
    ResultDetectionCondition: censored[1] === '<' ? 'Below Detection/Quantification Limit' : 'Above Detection/Quantification Limit',
    ResultDetectionQuantitationLimitMeasure: censored[2],
    ResultDetectionQuantitationLimitUnit: o.unit,
    ResultDetectionQuantitationLimitType: 'Method Detection Level',
    ...(o.limitUnitOnly === false ? { ResultUnit: o.unit } : {}),
  };
}

function row(ds: TestDataset, o: TestObservation): Row {
  const where = ds.locations?.[o.location] ?? { latitude: 53.5, longitude: -113.5 };
  return {
    DatasetName: ds.name,
    MonitoringLocationID: o.location,
    MonitoringLocationName: `Site ${o.location}`,
    MonitoringLocationLatitude: String(where.latitude),
    MonitoringLocationLongitude: String(where.longitude),
    MonitoringLocationHorizontalCoordinateReferenceSystem: 'WGS84',
    MonitoringLocationType: ('type' in where && where.type) || 'River/Stream',
    ActivityType: o.activityType ?? 'Field Msr/Obs',
    ActivityMediaName: 'Surface Water',
    ActivityStartDate: o.date,
    ActivityStartTime: o.time,
    CharacteristicName: o.characteristic,
    MethodSpeciation: o.speciation,
    ResultSampleFraction: o.fraction,
    ResultValueType: 'Actual',
    ResultStatusID: 'Validated',
    // Upstream asks a lab sample (ActivityType `Sample-…`, `Quality Control Sample-…`) for its lab and method.
    ...(/^(Quality Control )?Sample-/.test(o.activityType ?? '') ? { LaboratoryName: 'Test Laboratory', ResultAnalyticalMethodName: 'Test method' } : {}),
    ...resultColumns(o),
  };
}

/** Writes `ds` as `<src>/<folder>/` (metadata.json and data.csv). */
export async function writeTestDataset(src: string, ds: TestDataset): Promise<void> {
  const dir = join(src, ds.folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'metadata.json'), JSON.stringify({ DOI: ds.doi, DatasetName: ds.name, Licence: 'ODC-By' }, null, 2));
  const lines = ds.observations.map((o) => {
    const r = row(ds, o);
    return COLUMNS.map((c) => csvField(r[c] ?? '')).join(',');
  });
  await writeFile(join(dir, 'data.csv'), `${[COLUMNS.join(','), ...lines].join('\n')}\n`);
}

/** Rows of a query on a published file, with every BIGINT as a JS number (Ids and counts here fit). */
export async function readRows(path: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const rows = (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

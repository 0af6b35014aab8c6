import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, qualityControlSql } from '../schemas/index.js';
import { kmConversionOn, kmRowSql, kmSummarySql, UNIT_CONVERSION_COLUMNS, type KmNames, type KmOutput } from '../schemas/km-sql.js';
import { run, scalarNumber } from './db.js';
import { list } from './build-tables.js';
import { ident, literal } from './sql.js';

/**
 * A step of the statistics stage (issue 48; issue 52): `location_summaries`, one row per location ×
 * CharacteristicName × ResultSampleFraction × MethodSpeciation × unit of the build's observations, quality-control
 * results left out. A delta build holds only the changed datasets, and a location belongs to one dataset, so the
 * merge appends the delta's rows and drops a replaced dataset's by DOI (merge.ts) without recomputing anything else.
 *
 * - the unit is a row's ResultUnit, or for a censored result without one its limit's unit, so a laboratory's
 *   non-detects meet the values they censor; limits in another unit convert through `unit_conversions`;
 * - the statistics are ../shared/statistics/README.md's (schemas/km-sql.ts, shared with the API's `$apply`):
 *   Method and MethodReason, Kaplan–Meier percentiles and mean where results are censored, type-7 percentiles and
 *   the arithmetic mean where none is, Min and Max as reported, each bound with its qualifier;
 * - `Id` is LocationId × 2^16 + the group's rank within its location (by the four keys, blanks first): unique
 *   across publishes because location Ids are never reused, ascending by LocationId, so the delta's rows append in
 *   Id order after the published ones;
 * - the latest observation is the greatest by (ActivityStartDate, ActivityStartTime, Id); a missing time sorts
 *   before every time of the same day.
 */

/** Summary rows one location may have; the Id's low bits hold the rank. */
export const SUMMARIES_PER_LOCATION = 2 ** 16;

const GROUP = ['LocationId', 'DOI', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit'];
const NAMES: KmNames = { ident, constant: literal };

/** The summary columns that are not statistics, as aggregates over a group's rows; `latest` is the struct arg_max picks. */
const CARRIED: Readonly<Record<string, string>> = {
  Count: 'count(*)',
  NonDetects: 'count(*) - count("ResultValue")',
  FirstDate: 'min("ActivityStartDate")',
  LastDate: 'max("ActivityStartDate")',
  latest:
    `arg_max({'id': "Id", 'date': "ActivityStartDate", 'time': "ActivityStartTime", 'value': "ResultValue", 'condition': "ResultDetectionCondition"}, ` +
    `{'date': "ActivityStartDate", 'timed': "ActivityStartTime" IS NOT NULL, 'time': coalesce("ActivityStartTime", TIME '00:00:00'), 'id': "Id"})`,
};

/** The served columns read from the summarised group `g`. */
const FROM_GROUP: Readonly<Record<string, string>> = {
  LeftCensored: 'g.km_left',
  RightCensored: 'g.km_right',
  Unusable: 'g."NonDetects" - g.km_left - g.km_right',
  LatestObservationId: 'g.latest.id',
  LatestDate: 'g.latest.date',
  LatestTime: 'g.latest.time',
  LatestValue: 'g.latest.value',
  LatestDetectionCondition: 'g.latest.condition',
};

/** The statistics' fields and the shared SQL's columns that hold them. */
const STATISTICS: Readonly<Record<string, KmOutput>> = {
  Method: 'km_method', MethodReason: 'km_reason', Min: 'km_min', MinQualifier: 'km_min_q', Max: 'km_max', MaxQualifier: 'km_max_q', Mean: 'km_mean',
  Median: 'km_median', MedianQualifier: 'km_median_q', P10: 'km_p10', P10Qualifier: 'km_p10_q', P90: 'km_p90', P90Qualifier: 'km_p90_q',
};

/** The build's observations as the statistics read them: their group's unit, kind and number (schemas/km-sql.ts). */
function summaryRows(): string {
  const o = (c: string) => `o.${ident(c)}`;
  const u = (c: string) => `u.${ident(c)}`;
  const row = { value: o('ResultValue'), unit: o('ResultUnit'), condition: o('ResultDetectionCondition'), limit: o('ResultDetectionQuantitationLimitMeasure'), limitUnit: o('ResultDetectionQuantitationLimitUnit') };
  const conv = { fromUnit: u(UNIT_CONVERSION_COLUMNS.fromUnit), toUnit: u(UNIT_CONVERSION_COLUMNS.toUnit), factor: u(UNIT_CONVERSION_COLUMNS.factor), offset: u(UNIT_CONVERSION_COLUMNS.offset) };
  const sql = kmRowSql(row, conv, NAMES);
  const kept = ['LocationId', 'DOI', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'Id', 'ActivityStartDate', 'ActivityStartTime', 'ResultValue', 'ResultDetectionCondition'];
  return (
    `(SELECT ${kept.map(o).join(', ')}, ${sql.unit} AS "ResultUnit", ${sql.kind} AS km_k, ${sql.number} AS km_x ` +
    `FROM observations o LEFT JOIN unit_conversions u ON ${kmConversionOn(row, conv)} WHERE ${'NOT ' + qualityControlSql(o('ActivityGroupType'))})`
  );
}

/** Every group of the observations with its statistics (the bench times it against the detected-values-only summaries). */
export function summaryGroupsSql(): string {
  return kmSummarySql({ input: summaryRows(), keys: GROUP, carry: CARRIED, names: NAMES });
}

/** Writes `location_summaries` from the build's `observations` (and `unit_conversions`), in Id order. */
export async function writeLocationSummaries(conn: DuckDBConnection): Promise<void> {
  const rank = `row_number() OVER (PARTITION BY g."LocationId" ORDER BY ${GROUP.slice(2).map((c) => `g.${ident(c)} NULLS FIRST`).join(', ')}) - 1`;
  const select = columnNames('location_summaries').map((c) => {
    if (c === 'Id') return `g."LocationId" * ${SUMMARIES_PER_LOCATION} + ${rank}`;
    const statistic = STATISTICS[c];
    return statistic ? `g.${statistic}` : (FROM_GROUP[c] ?? `g.${ident(c)}`);
  });
  await run(conn, `CREATE OR REPLACE TEMP TABLE summary_groups AS ${summaryGroupsSql()}`);
  const crowded = await scalarNumber(conn, `SELECT count(*) FROM (SELECT "LocationId" FROM summary_groups GROUP BY ALL HAVING count(*) >= ${SUMMARIES_PER_LOCATION})`);
  if (crowded > 0) throw new Error(`${crowded} location(s) have ${SUMMARIES_PER_LOCATION} or more characteristic × fraction × speciation × unit combinations; location_summaries cannot number them; nothing published`);
  await run(conn, `INSERT INTO location_summaries (${list(columnNames('location_summaries'))}) SELECT ${select.join(', ')} FROM summary_groups g ORDER BY 1`);
  await run(conn, 'DROP TABLE summary_groups');
}

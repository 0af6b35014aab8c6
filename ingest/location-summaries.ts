import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames } from '../schemas/index.js';
import { run, scalarNumber } from './db.js';
import { list } from './build-tables.js';
import { ident } from './sql.js';

/**
 * A step of the statistics stage (issue 48): `location_summaries`, one row per location × CharacteristicName ×
 * ResultSampleFraction × MethodSpeciation × ResultUnit of the build's observations. A delta build holds only the
 * changed datasets, and a location belongs to one dataset, so the merge appends the delta's rows and drops a
 * replaced dataset's by DOI (merge.ts) without recomputing anything else.
 *
 * - `Id` is LocationId × 2^16 + the group's rank within its location (by the four keys, blanks first): unique
 *   across publishes because location Ids are never reused, ascending by LocationId, so the delta's rows append in
 *   Id order after the published ones;
 * - Median, P10 and P90 are continuous quantiles (linear interpolation between the two nearest ranks) of the
 *   values, non-detects left out; Min, Max, Mean likewise;
 * - the latest observation is the greatest by (ActivityStartDate, ActivityStartTime, Id); a missing time sorts
 *   before every time of the same day.
 */

/** Summary rows one location may have; the Id's low bits hold the rank. */
export const SUMMARIES_PER_LOCATION = 2 ** 16;

const GROUP = ['LocationId', 'DOI', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit'];

/** Every summary column as SQL over the observations `o`, grouped by GROUP; `latest` is the struct arg_max picks. */
const AGGREGATES: Readonly<Record<string, string>> = {
  Count: 'count(*)',
  NonDetects: 'count(*) - count("ResultValue")',
  FirstDate: 'min("ActivityStartDate")',
  LastDate: 'max("ActivityStartDate")',
  Min: 'min("ResultValue")',
  Max: 'max("ResultValue")',
  Mean: 'avg("ResultValue")',
  Median: 'quantile_cont("ResultValue", 0.5)',
  P10: 'quantile_cont("ResultValue", 0.1)',
  P90: 'quantile_cont("ResultValue", 0.9)',
  latest:
    `arg_max({'id': "Id", 'date': "ActivityStartDate", 'time': "ActivityStartTime", 'value': "ResultValue", 'condition': "ResultDetectionCondition"}, ` +
    `{'date': "ActivityStartDate", 'timed': "ActivityStartTime" IS NOT NULL, 'time': coalesce("ActivityStartTime", TIME '00:00:00'), 'id': "Id"})`,
};

/** The served columns read from the grouped row `g`. */
const FROM_GROUP: Readonly<Record<string, string>> = {
  LatestObservationId: 'g.latest.id',
  LatestDate: 'g.latest.date',
  LatestTime: 'g.latest.time',
  LatestValue: 'g.latest.value',
  LatestDetectionCondition: 'g.latest.condition',
};

/** Writes `location_summaries` from the build's `observations`, in Id order. */
export async function writeLocationSummaries(conn: DuckDBConnection): Promise<void> {
  const grouped = [...GROUP.map(ident), ...Object.entries(AGGREGATES).map(([name, sql]) => `${sql} AS ${ident(name)}`)].join(', ');
  const rank = `row_number() OVER (PARTITION BY g."LocationId" ORDER BY ${GROUP.slice(2).map((c) => `g.${ident(c)} NULLS FIRST`).join(', ')}) - 1`;
  const select = columnNames('location_summaries').map((c) => {
    if (c === 'Id') return `g."LocationId" * ${SUMMARIES_PER_LOCATION} + ${rank}`;
    return FROM_GROUP[c] ?? `g.${ident(c)}`;
  });
  await run(conn, `CREATE OR REPLACE TEMP TABLE summary_groups AS SELECT ${grouped} FROM observations GROUP BY ${list(GROUP)}`);
  const crowded = await scalarNumber(conn, `SELECT count(*) FROM (SELECT "LocationId" FROM summary_groups GROUP BY ALL HAVING count(*) >= ${SUMMARIES_PER_LOCATION})`);
  if (crowded > 0) throw new Error(`${crowded} location(s) have ${SUMMARIES_PER_LOCATION} or more characteristic × fraction × speciation × unit combinations; location_summaries cannot number them; nothing published`);
  await run(conn, `INSERT INTO location_summaries (${list(columnNames('location_summaries'))}) SELECT ${select.join(', ')} FROM summary_groups g ORDER BY 1`);
  await run(conn, 'DROP TABLE summary_groups');
}

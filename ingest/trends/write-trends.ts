import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames } from '../../schemas/index.js';
import { TREND_METHOD } from '../../schemas/trend-fields.js';
import { all, appendRows, type AppendValue } from '../db.js';
import { analyseSeries } from './analyse-series.js';
import { category, direction, improvesWhen, reason } from './trend-category.js';
import type { Period } from './trend-periods.js';
import { dropTrendTables, locationSlices, prepareTrendRows, type TrendSource } from './trend-sql.js';
import type { Censoring, Increment, SeriesPeriod, TimeIncrement, TrendStatistics } from './trend-types.js';

/**
 * Computes the trends of `source` for `periods` and appends them to `trends` in Id order: SQL selects and counts
 * (trend-sql.ts), then each page of series × periods is analysed here (analyse-series.ts) and appended through
 * the appender, a slice of locations at a time. A page holds a bounded number of rows and a slice a bounded number
 * of observations, so memory follows them, not the hub.
 */

/** Rows read, analysed and appended at a time. */
const PAGE_ROWS = 2048;

const CENSORING: readonly Censoring[] = ['not', 'lt', 'gt'];

export interface TrendsWritten {
  readonly series: number;
  readonly rows: number;
}

export async function writeTrends(conn: DuckDBConnection, source: TrendSource, periods: readonly Period[], perSlice?: number): Promise<TrendsWritten> {
  if (periods.length === 0) return { series: 0, rows: 0 };
  const written = { series: 0, rows: 0 };
  // A slice of locations at a time (trend-sql.ts), each appended after the last: Ids stay ascending.
  for (const slice of await locationSlices(conn, source, perSlice)) {
    const counts = await prepareTrendRows(conn, source, periods, slice);
    for (let from = 1; from <= counts.rows; from += PAGE_ROWS) {
      const page = await all(conn, 'SELECT * FROM tr_rows WHERE seq BETWEEN $1 AND $2 ORDER BY seq', [BigInt(from), BigInt(from + PAGE_ROWS - 1)]);
      await appendRows(conn, 'trends', page.map(trendRow));
    }
    written.series += counts.series;
    written.rows += counts.rows;
  }
  await dropTrendTables(conn);
  return written;
}

function increments(list: unknown): Increment[] {
  return ((list ?? []) as Record<string, unknown>[]).map((i) => ({
    observationId: BigInt(i.id as bigint),
    day: Number(i.day),
    year: Number(i.y),
    month: Number(i.m),
    value: Number(i.v),
    censoring: CENSORING[Number(i.cens)]!,
  }));
}

/** A tr_rows row as SQL counted it. */
function seriesPeriod(r: Record<string, unknown>): SeriesPeriod {
  return {
    startYear: Number(r.p_start),
    endYear: Number(r.p_end),
    observations: Number(r.observations),
    years: Number(r.years),
    months: Number(r.months),
    quarters: Number(r.quarters),
    detected: Number(r.detected),
    distinctDetected: r.distinct_detected === null ? null : Number(r.distinct_detected),
    timeIncrement: r.incr as TimeIncrement,
    increments: increments(r.incs),
  };
}

const int = (v: number | null | undefined): bigint | null => (v === null || v === undefined ? null : BigInt(v));
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** One `trends` row, its values in the table's column order. */
function trendRow(r: Record<string, unknown>): AppendValue[] {
  const period = seriesPeriod(r);
  const stats: TrendStatistics | undefined = analyseSeries(period);
  const characteristic = String(r.c);
  const polarity = improvesWhen(characteristic);
  const Cd = stats?.Cd ?? null;
  const values: Record<string, AppendValue> = {
    Id: BigInt(r.id as bigint),
    LocationId: BigInt(r.loc as bigint),
    DOI: String(r.doi),
    CharacteristicName: characteristic,
    ResultSampleFraction: text(r.f),
    MethodSpeciation: text(r.s),
    ResultUnit: text(r.u),
    Period: BigInt(period.endYear - period.startYear + 1),
    StartYear: BigInt(period.startYear),
    EndYear: BigInt(period.endYear),
    Observations: BigInt(period.observations),
    Months: BigInt(period.months),
    Quarters: BigInt(period.quarters),
    Years: BigInt(period.years),
    TimeIncrement: period.timeIncrement,
    ...statisticValues(stats),
    IncrementObservationIds: period.timeIncrement === 'unassessed' ? null : BigInt64Array.from(period.increments, (i) => i.observationId),
    Direction: direction(Cd),
    ImprovesWhen: polarity,
    Category: category(Cd, polarity),
    Reason: reason(stats, polarity),
    Method: TREND_METHOD,
  };
  return columnNames('trends').map((c) => {
    if (!(c in values)) throw new Error(`internal error: no value for trends.${c}`);
    return values[c]!;
  });
}

/** The statistics' columns; all null for an unassessed row. */
function statisticValues(s: TrendStatistics | undefined): Record<string, AppendValue> {
  return {
    N: int(s?.N),
    NCensored: int(s?.NCensored),
    Seasonal: s?.Seasonal ?? null,
    Season: s?.Season ?? null,
    SeasonalityP: s?.SeasonalityP ?? null,
    S: s?.S ?? null,
    VarS: s?.VarS ?? null,
    Tau: s?.Tau ?? null,
    Z: s?.Z ?? null,
    P: s?.P ?? null,
    C: s?.C ?? null,
    Cd: s?.Cd ?? null,
    Median: s?.Median ?? null,
    SenSlope: s?.SenSlope ?? null,
    SenSlopeLower90: s?.SenSlopeLower90 ?? null,
    SenSlopeUpper90: s?.SenSlopeUpper90 ?? null,
    PercentAnnualChange: s?.PercentAnnualChange ?? null,
    AnalysisNote: s?.AnalysisNote ?? null,
  };
}

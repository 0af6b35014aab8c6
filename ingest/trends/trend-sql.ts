import type { DuckDBConnection } from '@duckdb/node-api';
import { qualityControlGroups } from '../../schemas/index.js';
import { all, appendRows, run, scalarNumber } from '../db.js';
import { literal } from '../sql.js';
import type { Period } from './trend-periods.js';

/**
 * The SQL half of the trends (§1–§4): which observations are usable, each series × period's coverage and time
 * increment, and the one observation kept per year × month or quarter, into the temporary table `tr_rows`: one row
 * per series × period in Id order with its increments as a list, which write-trends.ts reads a page at a time. The
 * observations are read once, grouped by series, year and month; nothing per observation reaches JavaScript.
 */

/** Where the observations come from. */
export type TrendSource =
  /** The connection's own `observations`: a first build, a delta's changed datasets, a compaction, a merged copy. */
  | { readonly kind: 'build' }
  /**
   * The whole hub as it will be published: the attached `prev` file without the `dropped` datasets, plus the build's
   * own observations `withBuild` (a delta; a removal has none).
   */
  | { readonly kind: 'hub'; readonly dropped: readonly string[]; readonly withBuild: boolean };

const BELOW = 'Below Detection/Quantification Limit';
const ABOVE = 'Above Detection/Quantification Limit';

const INPUT = [
  'LocationId', 'DOI', 'CharacteristicName', 'ResultSampleFraction', 'MethodSpeciation', 'ResultUnit', 'ResultDetectionQuantitationLimitUnit',
  'ResultValue', 'ResultDetectionCondition', 'ResultDetectionQuantitationLimitMeasure', 'ActivityStartDate', 'ActivityStartTime', 'Id',
  'ActivityStartYear', 'ActivityGroupType',
].map((c) => `"${c}"`).join(', ');

/** §1: not a quality-control result, and a value, or a `<`/`>` condition with its limit. */
const USABLE =
  `"ActivityGroupType" NOT IN (${qualityControlGroups.map(literal).join(', ')}) AND ("ResultValue" IS NOT NULL OR ` +
  `("ResultDetectionCondition" IN (${literal(BELOW)}, ${literal(ABOVE)}) AND "ResultDetectionQuantitationLimitMeasure" IS NOT NULL))`;

/** The source as a relation; a hub's dropped datasets go into `tr_dropped` first. */
async function relation(conn: DuckDBConnection, source: TrendSource): Promise<string> {
  switch (source.kind) {
    case 'build':
      return 'observations';
    case 'hub':
      await run(conn, 'CREATE OR REPLACE TEMP TABLE tr_dropped (doi VARCHAR)');
      await appendRows(conn, 'tr_dropped', source.dropped.map((d) => [d]), 'main', 'temp');
      const own = source.withBuild ? ` UNION ALL SELECT ${INPUT} FROM observations` : '';
      return `(SELECT ${INPUT} FROM prev.observations WHERE "DOI" NOT IN (SELECT doi FROM tr_dropped)${own})`;
    default: {
      const never: never = source;
      throw new Error(`no trend source ${String(never)}`);
    }
  }
}

/** The latest calendar year of a usable observation (EndYear's default, §2); null when there is none. */
export async function latestUsableYear(conn: DuckDBConnection, source: TrendSource): Promise<number | null> {
  const [row] = await all(conn, `SELECT max("ActivityStartYear") AS y FROM ${await relation(conn, source)} WHERE ${USABLE}`);
  return row?.y === null || row?.y === undefined ? null : Number(row.y);
}

/** Rows a location may have; the Id's low bits hold the row's rank within its location. */
export const TRENDS_PER_LOCATION = 2 ** 16;

/** §4's distance to the middle of increment k of m a year, times 2m (whole numbers): |2m·dayOfYear − 365(2k+1)|. */
const distance = (m: number, k: string) => `abs(${2 * m} * dayofyear(d) - 365 * (2 * (${k}) + 1))`;
/** A kept observation: the smallest by distance, then canonical order (date, a missing time first, time, Id). */
const pick = (m: number, k: string) =>
  `min({'dist': ${distance(m, k)}, 'day': day, 'timed': t IS NOT NULL, 't': coalesce(t, TIME '00:00:00'), 'id': id, 'm': mo, 'v': v, 'cens': cens})`;

/**
 * tr_months: per series, year and month of the periods' years, the usable observations counted (all and detected),
 * the four smallest detected values (all of them in a month of 4 or fewer: what the first tier needs, below) and two
 * candidates kept: the month's (§4, monthly) and the one nearest its quarter's middle (the quarter's is the nearest of
 * its three months'). `sid` numbers the series in Id order, from tr_series: numbered there, over the distinct series,
 * rather than by a window over every month.
 */
async function monthGroups(conn: DuckDBConnection, from: string, slice: LocationSlice): Promise<void> {
  const observations = `SELECT "LocationId" AS loc, "DOI" AS doi, "CharacteristicName" AS c, "ResultSampleFraction" AS f, "MethodSpeciation" AS s,
      CASE WHEN "ResultValue" IS NOT NULL THEN "ResultUnit" ELSE "ResultDetectionQuantitationLimitUnit" END AS u,
      "ActivityStartYear" AS y, month("ActivityStartDate") AS mo, "ActivityStartDate" AS d, CAST("ActivityStartDate" - DATE '1970-01-01' AS INTEGER) AS day,
      "ActivityStartTime" AS t, "Id" AS id, coalesce("ResultValue", "ResultDetectionQuantitationLimitMeasure") AS v,
      CASE WHEN "ResultValue" IS NOT NULL THEN 0 WHEN "ResultDetectionCondition" = ${literal(BELOW)} THEN 1 ELSE 2 END AS cens
    FROM ${from}
    WHERE ${USABLE} AND "LocationId" BETWEEN ${slice.from} AND ${slice.to}
      AND "ActivityStartYear" BETWEEN (SELECT min(p_start) FROM tr_periods) AND (SELECT max(p_end) FROM tr_periods)`;
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE tr_groups AS
     SELECT loc, doi, c, f, s, u, y, mo AS m, count(*) AS n, count(*) FILTER (WHERE cens = 0) AS nd, min(v, 4) FILTER (WHERE cens = 0) AS dv,
       ${pick(12, 'mo - 1')} AS mp, ${pick(4, '(mo - 1) // 3')} AS qp
     FROM (${observations}) o GROUP BY loc, doi, c, f, s, u, y, mo`,
  );
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE tr_series AS
     SELECT row_number() OVER (ORDER BY loc, c, f NULLS FIRST, s NULLS FIRST, u NULLS FIRST) AS sid, * FROM (SELECT DISTINCT loc, doi, c, f, s, u FROM tr_groups)`,
  );
  const same = ['loc', 'c', 'f', 's', 'u'].map((k) => `g.${k} IS NOT DISTINCT FROM r.${k}`).join(' AND ');
  await run(conn, `CREATE OR REPLACE TEMP TABLE tr_months AS SELECT r.sid, g.y, g.m, g.n, g.nd, g.dv, g.mp, g.qp FROM tr_groups g JOIN tr_series r ON ${same}`);
  await run(conn, 'DROP TABLE tr_groups');
}

/** §3's "≥ 90 %" in whole numbers, for a period of `p` years. */
const atLeast = (tenths: number, p: string) => `(${tenths} * ${p} + 9) // 10`;

/** tr_sp: each series × period with its coverage counts (§3) and time increment. */
async function seriesPeriods(conn: DuckDBConnection): Promise<void> {
  const P = '(p_end - p_start + 1)';
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE tr_sp AS
     SELECT *, CASE WHEN months >= ${atLeast(108, P)} AND years >= ${atLeast(9, P)} THEN 'monthly'
                    WHEN quarters >= ${atLeast(36, P)} AND years >= ${atLeast(9, P)} THEN 'quarterly' ELSE 'unassessed' END AS incr
     FROM (
       SELECT sid, p.p_start, p.p_end, CAST(sum(n) AS BIGINT) AS observations, count(DISTINCT y) AS years, count(*) AS months,
         count(DISTINCT y * 4 + (m - 1) // 3) AS quarters, CAST(sum(nd) AS BIGINT) AS detected,
         -- Counted only below 5 detected values, where each month's four smallest are all of them (SeriesPeriod).
         CASE WHEN sum(nd) < 5 THEN len(list_distinct(flatten(list(dv) FILTER (WHERE nd > 0)))) END AS distinct_detected
       FROM tr_months JOIN tr_periods p ON y BETWEEN p.p_start AND p.p_end
       GROUP BY sid, p.p_start, p.p_end) JOIN tr_series USING (sid)`,
  );
}

/** tr_rows: the series × periods in Id order, each with its kept increments in time order (none when unassessed). */
async function rowsWithIncrements(conn: DuckDBConnection): Promise<void> {
  const item = (k: string, y: string) => `{'id': ${k}.id, 'day': ${k}.day, 'y': ${y}, 'm': ${k}.m, 'v': ${k}.v, 'cens': ${k}.cens}`;
  // Quarters only for the series some period of which is quarterly: most are monthly or unassessed.
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE tr_quarters AS SELECT sid, y, (m - 1) // 3 AS q, min(qp) AS qp FROM tr_months
     WHERE sid IN (SELECT sid FROM tr_sp WHERE incr = 'quarterly') GROUP BY sid, y, (m - 1) // 3`,
  );
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE tr_rows AS
     WITH incs AS (
       SELECT sp.sid, sp.p_start, sp.p_end, list(${item('t.mp', 't.y')} ORDER BY t.mp.day) AS incs
       FROM tr_sp sp JOIN tr_months t ON t.sid = sp.sid AND t.y BETWEEN sp.p_start AND sp.p_end WHERE sp.incr = 'monthly'
       GROUP BY sp.sid, sp.p_start, sp.p_end
       UNION ALL
       SELECT sp.sid, sp.p_start, sp.p_end, list(${item('q.qp', 'q.y')} ORDER BY q.qp.day) AS incs
       FROM tr_sp sp JOIN tr_quarters q ON q.sid = sp.sid AND q.y BETWEEN sp.p_start AND sp.p_end WHERE sp.incr = 'quarterly'
       GROUP BY sp.sid, sp.p_start, sp.p_end
     )
     SELECT row_number() OVER (ORDER BY sp.sid, sp.p_start, sp.p_end) AS seq,
       sp.loc * ${TRENDS_PER_LOCATION} + row_number() OVER (PARTITION BY sp.loc ORDER BY sp.sid, sp.p_start, sp.p_end) - 1 AS id,
       sp.*, i.incs
     FROM tr_sp sp LEFT JOIN incs i ON i.sid = sp.sid AND i.p_start = sp.p_start AND i.p_end = sp.p_end
     ORDER BY seq`,
  );
}

/** A range of LocationIds computed at once: a series lies in one location, so a slice's series are all of theirs. */
export interface LocationSlice {
  readonly from: bigint;
  readonly to: bigint;
}

/**
 * Usable observations computed per slice: a slice's working tables (its months' candidates, its series × periods)
 * hold a part of the hub, so the stage's memory follows this, not the hub (issue 55: at 10M rows the whole hub's
 * month groups ran out of a 512 MiB limit).
 */
export const TREND_OBSERVATIONS_PER_SLICE = 1_000_000;

/**
 * The source's locations cut into consecutive ranges of about `perSlice` usable observations each (a location with
 * more is a slice of its own), in LocationId order: trends' Ids begin with their location's, so slices written one
 * after another stay in Id order.
 */
export async function locationSlices(conn: DuckDBConnection, source: TrendSource, perSlice = TREND_OBSERVATIONS_PER_SLICE): Promise<LocationSlice[]> {
  const counts = await all(conn, `SELECT "LocationId" AS loc, count(*) AS n FROM ${await relation(conn, source)} WHERE ${USABLE} GROUP BY 1 ORDER BY 1`);
  const slices: LocationSlice[] = [];
  let from: bigint | undefined;
  let n = 0;
  for (const row of counts) {
    const loc = BigInt(row.loc as bigint);
    if (from !== undefined && n + Number(row.n) > perSlice) {
      slices.push({ from, to: loc - 1n });
      from = undefined;
      n = 0;
    }
    from ??= loc;
    n += Number(row.n);
  }
  if (from !== undefined) slices.push({ from, to: BigInt(counts.at(-1)!.loc as bigint) });
  return slices;
}

/**
 * Fills tr_rows from `source`'s locations in `slice` for `periods` and returns how many series and rows it holds.
 * Throws when a location has more rows than its Ids can number (nothing is published).
 */
export async function prepareTrendRows(conn: DuckDBConnection, source: TrendSource, periods: readonly Period[], slice: LocationSlice): Promise<{ series: number; rows: number }> {
  await run(conn, 'CREATE OR REPLACE TEMP TABLE tr_periods (p_start BIGINT, p_end BIGINT)');
  await appendRows(conn, 'tr_periods', periods.map((p) => [p.startYear, p.endYear].map(BigInt)), 'main', 'temp');
  await monthGroups(conn, await relation(conn, source), slice);
  await seriesPeriods(conn);
  await rowsWithIncrements(conn);
  const crowded = await scalarNumber(conn, `SELECT count(*) FROM (SELECT loc FROM tr_rows GROUP BY loc HAVING count(*) >= ${TRENDS_PER_LOCATION})`);
  if (crowded > 0) throw new Error(`${crowded} location(s) have ${TRENDS_PER_LOCATION} or more series × periods; trends cannot number them; nothing published`);
  const [counts] = await all(conn, 'SELECT (SELECT count(*) FROM tr_rows) AS rows, (SELECT count(DISTINCT sid) FROM tr_rows) AS series');
  return { series: Number(counts!.series), rows: Number(counts!.rows) };
}

/** Drops the temporary tables of a computation. */
export async function dropTrendTables(conn: DuckDBConnection): Promise<void> {
  for (const t of ['tr_dropped', 'tr_periods', 'tr_groups', 'tr_series', 'tr_months', 'tr_sp', 'tr_quarters', 'tr_rows']) await run(conn, `DROP TABLE IF EXISTS ${t}`);
}

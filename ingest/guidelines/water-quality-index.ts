import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, type StorageTable } from '../../schemas/index.js';
import { list } from '../build-tables.js';
import { run, scalarNumber } from '../db.js';
import { workTables as T } from './work-tables.js';

/**
 * The index step: the CCME Water Quality Index (CCME 2001, calculator 1.0; shared guidelines README §5) per
 * location, calendar year and publisher, over the build's comparisons with the publisher's long-term guidelines,
 * into `water_quality_index` in Id order.
 */
export async function writeWaterQualityIndex(conn: DuckDBConnection): Promise<number> {
  const table: StorageTable = 'water_quality_index';
  const inserted = await run(conn, `INSERT INTO ${table} (${list(columnNames(table))}) ${indexSql}`);
  const bad = await scalarNumber(conn, `SELECT count(*) FROM ${table} WHERE "Year" < 0 OR "Year" >= 16384`);
  if (bad > 0) throw new Error(`internal error: ${bad} water quality index row(s) with a year outside 0–16383`);
  return inserted;
}

/**
 * The tests: each observation's governing long-term comparison of the publisher, when it gives a verdict (the most
 * protective guideline stands for the variable, governing.ts).
 */
const tests = `
     c AS (
       SELECT "ObservationId", "GuidelineId", "DOI", "LocationId", "ActivityStartYear", "Publisher", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation",
         "ResultValue", "ResultUnit", "Verdict", "GuidelineLower" AS L, "GuidelineUpper" AS U
       FROM guideline_comparisons
       WHERE "Governing" AND "Term" = 'long-term' AND "Verdict" IN ('meets', 'exceeds')
     ), limits AS (
       -- A failed test with no value failed by its limit (a non-detect below a minimum, a result above a maximum's
       -- quantification limit): its excursion is the limit's, in the result's unit as the bounds are.
       SELECT c."ObservationId", o."ResultDetectionQuantitationLimitMeasure" * u.factor + u."offset" AS d
       FROM (SELECT DISTINCT "ObservationId", "ResultUnit" FROM c WHERE "ResultValue" IS NULL AND "Verdict" = 'exceeds') c
       JOIN observations o ON o."Id" = c."ObservationId"
       JOIN ${T.units} u ON u.from_unit = coalesce(o."ResultDetectionQuantitationLimitUnit", '') AND u.to_unit = coalesce(c."ResultUnit", '')
     ), t AS (
       SELECT "DOI", "LocationId", "ActivityStartYear" AS Year, "Publisher" AS Publisher, "CharacteristicName", coalesce("ResultSampleFraction", '') AS f, coalesce("MethodSpeciation", '') AS s,
         "Verdict" = 'exceeds' AS failed, coalesce("ResultValue", limits.d) AS x, L, U
       FROM c LEFT JOIN limits USING ("ObservationId")
     )`;

/** F1, F2, F3 and the index of each location-year-publisher from its variables with at least 4 tests. */
const factors = `
     e AS (
       SELECT t.*, CASE WHEN failed THEN CASE WHEN U IS NOT NULL AND x > U THEN x / NULLIF(U, 0) - 1 WHEN L IS NOT NULL AND x < L THEN L / NULLIF(x, 0) - 1 END END AS excursion FROM t
     ), var AS (
       SELECT "DOI", "LocationId", Year, Publisher, "CharacteristicName", f, s, count(*) AS n, count(*) FILTER (WHERE failed) AS nf, coalesce(sum(excursion), 0) AS exc
       FROM e GROUP BY ALL
     ), agg AS (
       SELECT "DOI", "LocationId", Year, Publisher,
         count(*) FILTER (WHERE n >= 4) AS Variables, coalesce(sum(n) FILTER (WHERE n >= 4), 0) AS Tests,
         count(*) FILTER (WHERE n >= 4 AND nf > 0) AS FailedVariables, coalesce(sum(nf) FILTER (WHERE n >= 4), 0) AS FailedTests,
         coalesce(sum(exc) FILTER (WHERE n >= 4), 0) AS exc
       FROM var GROUP BY ALL
     ), f AS (
       SELECT agg.*, Variables >= 4 AS computed,
         CASE WHEN Variables >= 4 THEN 100.0 * FailedVariables / Variables END AS F1,
         CASE WHEN Variables >= 4 THEN 100.0 * FailedTests / Tests END AS F2,
         CASE WHEN Variables >= 4 THEN (exc / Tests) / (0.01 * (exc / Tests) + 0.01) END AS F3
       FROM agg
     ), w AS (SELECT f.*, 100 - sqrt(F1 * F1 + F2 * F2 + F3 * F3) / 1.732 AS WQI FROM f)`;

const indexSql = `
     WITH ${tests}, ${factors}
     SELECT (w."LocationId" * 16384 + w.Year) * 64 + p.rank AS "Id", w."DOI", w."LocationId", w.Year, w.Publisher, w.Variables, w.Tests, w.FailedVariables, w.FailedTests,
       w.F1, w.F2, w.F3, w.WQI,
       CASE WHEN w.WQI IS NULL THEN NULL WHEN w.WQI >= 95 THEN 'Excellent' WHEN w.WQI >= 80 THEN 'Good' WHEN w.WQI >= 65 THEN 'Fair' WHEN w.WQI >= 45 THEN 'Marginal' ELSE 'Poor' END,
       CASE WHEN NOT w.computed THEN w.Variables || ' variable(s) with at least 4 tests in ' || w.Year || ' against ' || w.Publisher || '''s long-term guidelines; the index needs 4' END
     FROM w JOIN ${T.publishers} p ON p.Publisher = w.Publisher
     ORDER BY "Id"`;

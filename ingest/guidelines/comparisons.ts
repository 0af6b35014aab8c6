import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames } from '../../schemas/index.js';
import { list } from '../build-tables.js';
import { all, run } from '../db.js';
import { ident, literal } from '../sql.js';
import { pairedObservations } from './applicable-guidelines.js';
import { reasonSql } from './comparison-reason.js';
import { governingRankSql } from './governing.js';
import { workTables as T } from './work-tables.js';

/**
 * The comparison step: every observation of the build with every guideline that applies to it, its bounds in the
 * result's unit, the verdict of docs/guidelines.md's table ("Verdicts"; shared guidelines README §4), the reason,
 * and which comparison governs the result's verdict (governing.ts), into `guideline_comparisons` in Id order. The pairs
 * are never materialised on their own: the governing ones are found first, then every comparison is written.
 */

const belowLimit = ['Not Detected', 'Below Detection/Quantification Limit'];
const aboveLimit = 'Above Detection/Quantification Limit';

/**
 * Each pair with its guideline's value that day (a constant, or the formula's), and the formula's sentences, for the
 * observations of Id $1 to $2.
 */
const valued = `
     p AS (
       SELECT o."Id" AS ObservationId, g.GuidelineId, o."DOI", o."LocationId", o."ActivityStartDate", o."ActivityStartYear", o."CharacteristicName",
              o."ResultSampleFraction", o."MethodSpeciation", o."ResultValue", o."ResultUnit", o."ResultDetectionCondition",
              o."ResultDetectionQuantitationLimitMeasure" AS limit_value, o."ResultDetectionQuantitationLimitUnit" AS limit_unit,
              g.MonitoringLocationType, o."ActivityMediaName", o."ActivityGroupType",
              g.Publisher, g.ProtectionLevel, g.Term, g.Alternatives, g.Bound, g.Unit AS g_unit, g.is_formula, g.const_lo, g.const_hi, g.ambiguity
       ${pairedObservations('o."Id" BETWEEN $1 AND $2')}
     ), b AS (
       SELECT p.*, coalesce(p."ResultUnit", p.limit_unit) AS r_unit,
         CASE WHEN p.is_formula THEN fv.lo ELSE p.const_lo END AS lo_g,
         CASE WHEN p.is_formula THEN fv.hi ELSE p.const_hi END AS hi_g,
         fv.clamps, fv.missing, fv.inputs_json
       FROM p LEFT JOIN ${T.formulaValues} fv ON fv."LocationId" = p."LocationId" AND fv."ActivityStartDate" = p."ActivityStartDate" AND fv.GuidelineId = p.GuidelineId
     )`;

/** The bounds L and U and the limit d in the result's unit (NULL where a unit does not convert). */
const converted = `
     c AS (
       SELECT b.*, ug.factor IS NOT NULL AS converts,
         CASE WHEN b.Bound <> 'maximum' THEN b.lo_g * ug.factor + ug."offset" END AS L,
         CASE WHEN b.Bound <> 'minimum' THEN b.hi_g * ug.factor + ug."offset" END AS U,
         b.limit_value * ud.factor + ud."offset" AS d
       FROM b
       LEFT JOIN ${T.units} ug ON ug.from_unit = b.g_unit AND ug.to_unit = coalesce(b.r_unit, '')
       LEFT JOIN ${T.units} ud ON ud.from_unit = coalesce(b.limit_unit, '') AND ud.to_unit = coalesce(b.r_unit, '')
     ), v AS (
       SELECT c.*, c.converts AND ((c.Bound = 'maximum' AND c.U IS NOT NULL) OR (c.Bound = 'minimum' AND c.L IS NOT NULL) OR (c.Bound = 'range' AND c.L IS NOT NULL AND c.U IS NOT NULL)) AS bounded,
         c."ResultDetectionCondition" IN (${belowLimit.map(literal).join(', ')}) AS below, c."ResultDetectionCondition" = ${literal(aboveLimit)} AS above
       FROM c
     )`;

/**
 * The verdict table: a value against its bounds; a limit below or above the result against them; else
 * indeterminate, as is every result of an ambiguous characteristic.
 */
export const verdictSql = `CASE
         WHEN NOT bounded OR ambiguity IS NOT NULL THEN 'indeterminate'
         WHEN "ResultValue" IS NOT NULL THEN CASE WHEN "ResultValue" < L OR "ResultValue" > U THEN 'exceeds' ELSE 'meets' END
         WHEN d IS NULL THEN 'indeterminate'
         WHEN below THEN CASE WHEN Bound = 'maximum' THEN CASE WHEN d <= U THEN 'meets' ELSE 'indeterminate' END
                              ELSE CASE WHEN d <= L THEN 'exceeds' ELSE 'indeterminate' END END
         WHEN above THEN CASE Bound WHEN 'maximum' THEN CASE WHEN d >= U THEN 'exceeds' ELSE 'indeterminate' END
                                    WHEN 'minimum' THEN CASE WHEN d >= L THEN 'meets' ELSE 'indeterminate' END
                                    ELSE 'indeterminate' END
         ELSE 'indeterminate'
       END`;

/**
 * Observations compared per statement: the comparisons' sort and joins hold a slice of the build, not the whole of it,
 * so the stage's memory follows this, not the hub (issue 55: at 10M rows one statement ran out of a 512 MiB limit; at
 * 2M, slices of a million peaked at 1,164 MB, of half a million at 956 MB in the same CPU time). Slices are
 * consecutive Id ranges, each appended in Id order after the last.
 */
export const COMPARED_PER_STATEMENT = 500_000;

/**
 * Writes the comparisons; returns how many. Per slice of observations, two passes over the same pairs: the governing
 * comparisons first, from the few columns their rank reads (DuckDB prunes the pairs' other columns), then every
 * comparison with its text, joined to them. The rank as a window in the one statement carried every comparison's
 * columns through the window's sort: twice the CPU, and most of the stage's memory (docs/ingest.md, What an ingest
 * costs).
 */
export async function writeComparisons(conn: DuckDBConnection, perStatement = COMPARED_PER_STATEMENT): Promise<number> {
  const compared = `WITH ${valued}, ${converted}, w AS (SELECT v.*, ${verdictSql} AS Verdict FROM v)`;
  const cols = columnNames('guideline_comparisons');
  const exprs: Record<string, string> = {
    Id: 'ObservationId * 4096 + GuidelineId', GuidelineLower: 'L', GuidelineUpper: 'U', Reason: reasonSql, Inputs: 'inputs_json', ResultUnit: 'r_unit', Governing: 'gov_guideline IS NOT NULL',
  };
  const governs = `LEFT JOIN ${T.governing} ON gov_obs = ObservationId AND gov_guideline = GuidelineId`;
  const [range] = await all(conn, 'SELECT min("Id") AS lo, max("Id") AS hi FROM observations');
  if (range?.lo === null || range?.lo === undefined) return 0;
  let written = 0;
  for (let lo = BigInt(range.lo as bigint); lo <= BigInt(range.hi as bigint); lo += BigInt(perStatement)) {
    const slice = [lo, lo + BigInt(perStatement) - 1n];
    await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.governing} AS ${compared} SELECT ObservationId AS gov_obs, GuidelineId AS gov_guideline FROM w QUALIFY ${governingRankSql} = 1`, slice);
    written += await run(conn, `INSERT INTO guideline_comparisons (${list(cols)}) ${compared} SELECT ${cols.map((c) => `${exprs[c] ?? ident(c)} AS ${ident(c)}`).join(', ')} FROM w ${governs} ORDER BY ObservationId, GuidelineId`, slice);
  }
  return written;
}

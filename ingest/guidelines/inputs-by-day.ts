import type { DuckDBConnection } from '@duckdb/node-api';
import { qualityControlSql } from '../../schemas/index.js';
import { run } from '../db.js';
import { literal } from '../sql.js';
import { pairedObservations } from './applicable-guidelines.js';
import { inputNames, type InputName } from './guideline-expression.js';
import { inputColumn, numberSql } from './guideline-sql.js';
import { inputOf, inputUnitSql, isPaired, isSum, measuredCharacteristics, pairedNames, type InputSource, type Measured, type PairedName } from './paired-inputs.js';
import { workTables as T } from './work-tables.js';

/**
 * The inputs step (docs/guidelines.md, "Inputs"): the location-days a formula guideline is compared on, and on each
 * the paired inputs (paired-inputs.ts) from the same location and ActivityStartDate: quantified values converted to
 * the input's unit and averaged, with the Ids they came from, each input from the first of its sources found. A
 * quality-control result (a blank's pH, a replicate's hardness) is no input: it is not the water's.
 */

/** The column of an input's observation Ids on a day. */
export const idsColumn = (name: InputName): string => `"${name}_ids"`;

/** Each location-day × formula guideline compared on it (the few rows whose inputs are looked up). */
export async function formulaDays(conn: DuckDBConnection): Promise<void> {
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.formulaDays} AS SELECT DISTINCT o."LocationId", o."ActivityStartDate", g.GuidelineId, g.inputs ${pairedObservations('g.is_formula')}`);
}

export async function inputsByDay(conn: DuckDBConnection): Promise<void> {
  const measured = distinctMeasured();
  const column = (m: Measured) => `m${measured.findIndex((x) => x.characteristic === m.characteristic && x.fraction === m.fraction)}`;
  const where = (m: Measured) => `c = ${literal(m.characteristic)}${m.fraction === undefined ? '' : ` AND f = ${literal(m.fraction)}`}`;
  const means = measured.map((m) => `avg(v) FILTER (WHERE ${where(m)}) AS ${column(m)}, list(o_id ORDER BY o_id) FILTER (WHERE ${where(m)}) AS ${column(m)}_ids`);
  const inputs = inputNames.map((n) => (isPaired(n) ? pairedSql(n, column) : `CAST(NULL AS DOUBLE) AS ${inputColumn(n)}`));
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE ${T.inputs} AS
     WITH days AS (SELECT DISTINCT "LocationId", "ActivityStartDate" FROM ${T.formulaDays}),
     v AS (
       SELECT o."LocationId", o."ActivityStartDate", o."Id" AS o_id, o."CharacteristicName" AS c, o."ResultSampleFraction" AS f,
              CASE WHEN ${inputUnitSql('o."CharacteristicName"')} IS NULL THEN o."ResultValue" ELSE o."ResultValue" * u.factor + u."offset" END AS v
       FROM observations o
       SEMI JOIN days d ON d."LocationId" = o."LocationId" AND d."ActivityStartDate" = o."ActivityStartDate"
       LEFT JOIN ${T.units} u ON u.from_unit = coalesce(o."ResultUnit", '') AND u.to_unit = ${inputUnitSql('o."CharacteristicName"')}
       WHERE o."CharacteristicName" IN (${measuredCharacteristics().map((m) => literal(m.characteristic)).join(', ')}) AND o."ResultValue" IS NOT NULL
         AND NOT ${qualityControlSql('o."ActivityGroupType"')}
     ),
     m AS (SELECT "LocationId", "ActivityStartDate", ${means.join(', ')} FROM v WHERE v IS NOT NULL GROUP BY ALL)
     SELECT "LocationId", "ActivityStartDate", ${inputs.join(', ')} FROM m`,
  );
}

/** Every measured source of every input, once. */
function distinctMeasured(): Measured[] {
  const out: Measured[] = [];
  for (const n of pairedNames) {
    for (const s of inputOf(n).sources) {
      for (const m of isSum(s) ? s.terms.flatMap((t) => t.from) : [s]) {
        if (!out.some((x) => x.characteristic === m.characteristic && x.fraction === m.fraction)) out.push(m);
      }
    }
  }
  return out;
}

/** An input's value and Ids: its first source with a value that day (a sum has one when each of its terms has). */
function pairedSql(name: PairedName, column: (m: Measured) => string): string {
  const firstOf = (from: readonly Measured[], ids: boolean) => (from.length === 1 ? `${column(from[0]!)}${ids ? '_ids' : ''}` : ids ? `CASE ${from.map((m) => `WHEN ${column(m)} IS NOT NULL THEN ${column(m)}_ids`).join(' ')} END` : `coalesce(${from.map(column).join(', ')})`);
  const arm = (s: InputSource, ids: boolean) => {
    if (!isSum(s)) return `WHEN ${column(s)} IS NOT NULL THEN ${column(s)}${ids ? '_ids' : ''}`;
    const when = s.terms.map((t) => `coalesce(${t.from.map(column).join(', ')}) IS NOT NULL`).join(' AND ');
    const then = ids ? `list_concat(${s.terms.map((t) => firstOf(t.from, true)).join(', ')})` : s.terms.map((t) => `${numberSql(t.weight)} * ${firstOf(t.from, false)}`).join(' + ');
    return `WHEN ${when} THEN ${then}`;
  };
  const sources = inputOf(name).sources;
  return `CASE ${sources.map((s) => arm(s, false)).join(' ')} END AS ${inputColumn(name)}, CASE ${sources.map((s) => arm(s, true)).join(' ')} END AS ${idsColumn(name)}`;
}

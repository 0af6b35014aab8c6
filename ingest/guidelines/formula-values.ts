import type { DuckDBConnection } from '@duckdb/node-api';
import { all, run } from '../db.js';
import { literal } from '../sql.js';
import { constantOf } from './applicable-guidelines.js';
import { inputNames, type InputName } from './guideline-expression.js';
import { compileGuideline, inputColumn } from './guideline-sql.js';
import type { Guideline } from './guideline-table.js';
import { idsColumn } from './inputs-by-day.js';
import { inputOf, inputUnits, isPaired, pairedList, pairedNames } from './paired-inputs.js';
import { workTables as T } from './work-tables.js';

/**
 * The formulas step: each formula guideline's value on each location-day it is compared on, from the SQL its
 * expression compiles to (guideline-sql.ts) over that day's inputs, with the inputs used (JSON, served as
 * `Inputs`) and the sentences for clamped, missing and unpaired inputs.
 */
export async function formulaValues(conn: DuckDBConnection, guidelines: readonly Guideline[]): Promise<void> {
  // Only the formulas compared in this build: each is a CASE arm DuckDB binds whether it is used or not.
  const present = new Set((await all(conn, `SELECT DISTINCT GuidelineId AS id FROM ${T.formulaDays}`)).map((r) => Number(r.id)));
  const formulas = guidelines.filter((g) => present.has(g.Id) && g.formula !== undefined && constantOf(g) === undefined);
  const compiled = formulas.map((g) => ({ id: g.Id, ...compileGuideline(g.formula!, inputUnits) }));
  const caseOf = (pick: (c: (typeof compiled)[number]) => string, otherwise: string) =>
    compiled.length === 0 ? otherwise : `CASE k.GuidelineId ${compiled.map((c) => `WHEN ${c.id} THEN ${pick(c)}`).join(' ')} ELSE ${otherwise} END`;
  const clampList = (c: (typeof compiled)[number]) => (c.clamps.length === 0 ? 'CAST([] AS VARCHAR[])' : `list_filter([${c.clamps.join(', ')}], x -> x IS NOT NULL)`);
  await run(
    conn,
    `CREATE OR REPLACE TEMP TABLE ${T.formulaValues} AS
     WITH k AS (SELECT * FROM ${T.formulaDays})
     SELECT k."LocationId", k."ActivityStartDate", k.GuidelineId,
       ${caseOf((c) => c.lo, 'CAST(NULL AS DOUBLE)')} AS lo,
       ${caseOf((c) => c.hi, 'CAST(NULL AS DOUBLE)')} AS hi,
       ${caseOf(clampList, 'CAST([] AS VARCHAR[])')} AS clamps,
       NULLIF(concat_ws('; ', ${inputNames.map(missingSentence).join(', ')}), '') AS missing,
       NULLIF(to_json(list_filter([${pairedNames.map(inputUsed).join(', ')}], x -> x IS NOT NULL))::VARCHAR, '[]') AS inputs_json,
       ${pairedNames.map(inputColumn).join(', ')}
     FROM k LEFT JOIN ${T.inputs} i ON i."LocationId" = k."LocationId" AND i."ActivityStartDate" = k."ActivityStartDate"`,
  );
}

const used = (name: InputName) => `list_contains(k.inputs, ${literal(name)})`;

/** Why a formula that reads `name` has no value for it that day: none measured, or an input Tributary does not pair. */
function missingSentence(name: InputName): string {
  if (!isPaired(name)) return `CASE WHEN ${used(name)} THEN ${literal(`input ${name} is not one Tributary pairs (only ${pairedList})`)} END`;
  return `CASE WHEN ${used(name)} AND ${inputColumn(name)} IS NULL THEN ${literal(`no ${inputOf(name).label} measured at this location on this day`)} END`;
}

/** An input a formula read, as `Inputs` serves it: name, value, unit and the observations it came from. */
function inputUsed(name: (typeof pairedNames)[number]): string {
  const value = inputColumn(name);
  return `CASE WHEN ${used(name)} AND ${value} IS NOT NULL THEN {'name': ${literal(name)}, 'value': ${value}, 'unit': ${literal(inputOf(name).unit)}, 'observationIds': ${idsColumn(name)}} END`;
}

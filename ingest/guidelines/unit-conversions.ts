import type { DuckDBConnection } from '@duckdb/node-api';
import { all, appendRows, run } from '../db.js';
import { conversion } from '../unit-conversion.js';
import { convertedInputs, inputUnitSql } from './paired-inputs.js';
import { workTables as T } from './work-tables.js';

/**
 * The unit conversion step (docs/guidelines.md, "Units"): each distinct pair of units this build converts between,
 * converted once through UCUM (unit-conversion.ts) into a factor and an offset: a guideline's unit to its results'
 * (a result with no unit has its limit's), a limit's unit to its result's, and an input's unit to the one it is
 * averaged in. A pair UCUM cannot convert has no row: the comparison says so.
 */
export async function unitConversions(conn: DuckDBConnection): Promise<void> {
  const pairs = await all(
    conn,
    `WITH u AS (SELECT DISTINCT "CharacteristicName", "ResultUnit", "ResultDetectionQuantitationLimitUnit" AS limit_unit FROM observations),
     p AS (SELECT DISTINCT g.Unit AS g_unit, u."ResultUnit", u.limit_unit FROM u JOIN ${T.guidelines} g ON g.CharacteristicName = u."CharacteristicName")
     SELECT g_unit AS "from", coalesce("ResultUnit", limit_unit, '') AS "to" FROM p
     UNION SELECT coalesce(limit_unit, ''), coalesce("ResultUnit", limit_unit, '') FROM p
     UNION SELECT DISTINCT coalesce("ResultUnit", ''), ${inputUnitSql('"CharacteristicName"')} FROM observations WHERE "CharacteristicName" IN (${convertedInputs()})`,
  );
  const rows: [string, string, number, number][] = [];
  for (const p of pairs) {
    const c = conversion(String(p.from), String(p.to));
    if (c) rows.push([String(p.from), String(p.to), c.factor, c.offset]);
  }
  await run(conn, `CREATE OR REPLACE TEMP TABLE ${T.units} (from_unit VARCHAR, to_unit VARCHAR, factor DOUBLE, "offset" DOUBLE)`);
  await appendRows(conn, T.units, rows, 'main', 'temp');
}

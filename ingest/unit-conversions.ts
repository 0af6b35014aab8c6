import type { DuckDBConnection } from '@duckdb/node-api';
import { LEFT_CENSORED_CONDITIONS, RIGHT_CENSORED_CONDITION } from '../schemas/km-sql.js';
import { all, appendRows } from './db.js';
import { literal } from './sql.js';
import { conversion } from './unit-conversion.js';

/**
 * A step of the statistics stage (issue 52): `unit_conversions`, UCUM's factor and offset for each pair (a censored
 * result's limit unit → its ResultUnit) the build's observations hold, in pair order. The statistics over non-detects
 * (schemas/km-sql.ts) join it, here for the summaries and in the API for `$apply`'s km methods, so the units library
 * is asked once per pair, at publish, and the API needs none. A pair without a conversion has no row: its limits are
 * unusable in that unit (../shared/statistics/README.md §2.3).
 */
export async function writeUnitConversions(conn: DuckDBConnection): Promise<void> {
  const conditions = [...LEFT_CENSORED_CONDITIONS, RIGHT_CENSORED_CONDITION].map(literal).join(', ');
  const pairs = await all(
    conn,
    `SELECT DISTINCT "ResultDetectionQuantitationLimitUnit" AS from_unit, "ResultUnit" AS to_unit FROM observations
     WHERE "ResultValue" IS NULL AND "ResultDetectionQuantitationLimitMeasure" IS NOT NULL AND "ResultDetectionCondition" IN (${conditions})
       AND "ResultUnit" <> "ResultDetectionQuantitationLimitUnit"
     ORDER BY 1, 2`,
  );
  const rows = pairs.flatMap((p) => {
    const c = conversion(String(p['from_unit']), String(p['to_unit']));
    return c ? [[String(p['from_unit']), String(p['to_unit']), c.factor, c.offset]] : [];
  });
  await appendRows(conn, 'unit_conversions', rows);
}


import type { DuckDBConnection } from '@duckdb/node-api';
import { list } from './build-tables.js';
import { freshRows, OK } from './batch-sql.js';
import { all, run } from './db.js';
import type { NewRows } from './stage-parts.js';

/**
 * Checks that the rows numbered after `base` are exactly the planned ranges of `parts` (one per dataset), and adds
 * their statistics; every row above `base` must belong to `parts`.
 */
async function checkNewObservations(conn: DuckDBConnection, parts: readonly NewRows[], base: number): Promise<void> {
  const written = await all(conn, 'SELECT "DOI", count(*) AS n, min("Id") AS lo, max("Id") AS hi FROM observations WHERE "Id" > $1 GROUP BY "DOI"', [base]);
  for (const p of parts) {
    const w = written.find((r) => r.DOI === p.DOI);
    if (!w || Number(w.n) !== p.to - p.from + 1 || Number(w.lo) !== p.from || Number(w.hi) !== p.to) {
      throw new Error(`internal error: ${p.DOI} was numbered ${w ? `${String(w.lo)}…${String(w.hi)} (${String(w.n)} rows)` : 'nothing'}, planned ${p.from}…${p.to}`);
    }
  }
  await run(conn, statsSql(), [base]);
}

function statsSql(): string {
  const keys = ['LocationId', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'ActivityStartYear'];
  return `INSERT INTO all_stats SELECT ${list(keys)}, count(*), min("Id"), max("Id") FROM observations WHERE "Id" > $1 GROUP BY ${list(keys)}`;
}

/**
 * Sets LocationId and numbers the batch's valid rows in place, Id = base + (rowid − the batch's first rowid) + 1
 * (valid rows come first, in order, at dense rowids), checks the planned ranges, adds their statistics, then
 * deletes the batch's invalid rows. The batch's first rowid is read in the numbering UPDATE itself: a checkpoint
 * between statements may shift it (load.ts).
 */
export async function numberBatch(conn: DuckDBConnection, before: number, parts: readonly NewRows[], base: number): Promise<void> {
  const fresh = freshRows(before);
  await run(
    conn,
    `UPDATE observations SET "LocationId" = l."Id" FROM all_locations l
     WHERE ${freshRows(before, 'observations.')} AND observations.${OK}
       AND l."DOI" = observations."DOI" AND l."MonitoringLocationID" = observations."MonitoringLocationID"`,
  );
  await run(conn, `UPDATE observations SET "Id" = $1 + (rowid - (SELECT min(rowid) FROM observations WHERE ${fresh})) + 1 WHERE ${fresh} AND ${OK}`, [base]);
  await checkNewObservations(conn, parts, base);
  await run(conn, `DELETE FROM observations WHERE ${fresh}`);
}


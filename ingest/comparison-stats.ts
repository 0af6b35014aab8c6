import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, storageKeys, type StorageTable } from '../schemas/index.js';
import { list } from './build-tables.js';
import { run } from './db.js';

/** The comparisons' statistics tables, finest first: each is counted from the one before it (docs/storage.md). */
export const comparisonStatTables = ['guideline_comparison_stats', 'guideline_comparison_totals'] as const satisfies readonly StorageTable[];

/** A statistics table's key: every column but the count, LocationId first. */
export const statKeys = (table: StorageTable) => columnNames(table).filter((c) => c !== storageKeys.count);

/**
 * guideline_comparison_stats from the build's comparisons, then guideline_comparison_totals from those statistics
 * (a fraction of the rows): all of them in a first build or a compaction, the delta's alone when merged onto a hub
 * (merge.ts drops a leaving dataset's rows by DOI and appends the delta's). Counted from the rows the build wrote,
 * so the counts equal a scan by construction; ordered by their keys, LocationId first.
 */
export async function writeComparisonStats(conn: DuckDBConnection): Promise<void> {
  const [stats, totals] = comparisonStatTables;
  await insertCounts(conn, stats, 'guideline_comparisons', 'count(*)');
  await insertCounts(conn, totals, stats, `sum(${storageKeys.count})`);
}

async function insertCounts(conn: DuckDBConnection, table: StorageTable, from: StorageTable, count: string): Promise<void> {
  const keys = list(statKeys(table));
  await run(conn, `INSERT INTO ${table} (${list(columnNames(table))}) SELECT ${keys}, ${count} FROM ${from} GROUP BY ${keys} ORDER BY ${keys}`);
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { columnNames, storageKeys } from '../schemas/index.js';
import { list } from './build-tables.js';
import { run } from './db.js';

/** guideline_comparison_stats' key: every column but the count, LocationId first (docs/storage.md). */
export const comparisonStatKeys = columnNames('guideline_comparison_stats').filter((c) => c !== storageKeys.count);

/**
 * guideline_comparison_stats from the build's comparisons: all of them in a first build or a compaction, the delta's
 * alone when merged onto a hub (merge.ts drops a leaving dataset's rows by DOI and appends the delta's). Recounted from
 * the rows the build wrote, so the counts equal a scan by construction. Returns the rows written.
 */
export async function writeComparisonStats(conn: DuckDBConnection): Promise<number> {
  const keys = list(comparisonStatKeys);
  return run(
    conn,
    `INSERT INTO guideline_comparison_stats (${list(columnNames('guideline_comparison_stats'))})
     SELECT ${keys}, count(*) FROM guideline_comparisons GROUP BY ${keys} ORDER BY ${keys}`,
  );
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { activityGroupOf, columnNames, createTableSql, type StorageTable } from '../schemas/index.js';
import { appendRows, run } from './db.js';
import type { IngestMemory } from './settings.js';
import { ident } from './sql.js';

/**
 * The tables of a build: the published tables (docs/storage.md), empty, and the temporary accumulators the
 * stages fill before statistics writes the small tables in their documented order: all_locations (locations
 * without their observation range, known only once every observation is in), all_stats, all_datasets.
 */

export const finalTables: readonly StorageTable[] = ['datasets', 'locations', 'location_regions', 'observations', 'observation_stats', 'observation_value_stats', 'observation_rollup', 'observation_region_rollup', 'unit_conversions', 'location_summaries', 'tributary_meta', 'dataset_files', 'publication_history', 'publication_changes', 'guidelines', 'guideline_comparisons', 'guideline_comparison_stats', 'guideline_comparison_totals', 'water_quality_index', 'trends', 'dataset_search'];

export const list = (cols: readonly string[], prefix = '') => cols.map((c) => `${prefix}${ident(c)}`).join(', ');
/** Locations without the observation range. */
export const locationCore = columnNames('locations').filter((c) => c !== 'first_obs_id' && c !== 'last_obs_id');

const ALLOCATOR_FLUSH = '32MiB';

/** Creates the build's tables and sets its memory limit (INGEST_MEMORY_LIMIT). */
export async function createBuildTables(conn: DuckDBConnection, memory: IngestMemory): Promise<void> {
  await run(conn, `SET memory_limit = '${Math.floor(memory.limitBytes / 2 ** 20)}MiB'`);
  // DuckDB returns freed memory to the system only past these thresholds (128 and 512 MiB by default, per thread):
  // with a limit of a few hundred MiB that retained memory was as large as the limit itself (issue 55).
  await run(conn, `SET allocator_flush_threshold = '${ALLOCATOR_FLUSH}'`);
  await run(conn, `SET allocator_bulk_deallocation_flush_threshold = '${ALLOCATOR_FLUSH}'`);
  for (const table of finalTables) await run(conn, createTableSql(table));
  await run(conn, `CREATE TEMP TABLE all_locations AS SELECT ${list(locationCore)} FROM locations WITH NO DATA`);
  await run(conn, `CREATE TEMP TABLE all_stats AS SELECT * FROM observation_stats WITH NO DATA`);
  await run(conn, `CREATE TEMP TABLE all_datasets AS SELECT * FROM datasets WITH NO DATA`);
  await run(conn, 'CREATE TEMP TABLE activity_groups (ActivityType VARCHAR PRIMARY KEY, ActivityGroupType VARCHAR NOT NULL)');
  await appendRows(conn, 'activity_groups', Object.entries(activityGroupOf), 'main', 'temp');
}

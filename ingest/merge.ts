import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { columnNames, STORAGE_SCHEMA_VERSION, type StorageTable } from '../schemas/index.js';
import { fsyncPath, removeBuildFiles, startCopy, type Copy } from './build-file.js';
import { comparisonStatTables } from './comparison-stats.js';
import { all, run } from './db.js';
import { writeMeta, type MetaValues } from './meta-rows.js';
import { recordPublication, type PublicationRecord } from './publication-history.js';
import { ident, literal, placeholders } from './sql.js';
import type { Period } from './trends/trend-periods.js';
import { writeTrends, type TrendsWritten } from './trends/write-trends.js';

/**
 * Stage 6 for a hub that is already published: copy-on-write. The published file is copied beside itself (a
 * reflink where the filesystem has one), the datasets that leave are deleted from the copy, the new ones are
 * appended from a delta file that the same stages 1–5 built on its own, and the copy is checkpointed, fsynced and
 * renamed over the target like a full build. The cost is the copy (sequential I/O) plus what changed, never a
 * re-sort or re-write of the kept rows (docs/storage.md, "Publishing a change").
 *
 * Why the layout invariants still hold:
 * - a dataset's rows are one Id range, so dropping it leaves every other location's range intact;
 * - the delta is numbered after the hub's high-water marks and appended at the end, so the table stays in
 *   ascending Id order physically and each new location is one contiguous range;
 * - observation_stats, observation_value_stats, location_summaries, trends and the comparisons' statistics are ordered by LocationId and new locations
 *   have the highest Ids, so appending keeps their order; the small tables ordered otherwise (datasets, location_regions, both rollups,
 *   dataset_files, dataset_search) are rewritten in order.
 */

export interface Change {
  /** Published datasets whose rows leave the hub: removed, or replaced by the delta's version. */
  readonly drop: readonly string[];
  /** A finished build (checkpointed and closed) of the new datasets alone; none for a removal. */
  readonly delta?: string;
  readonly meta: MetaValues;
  /** The new publication's parent and what it changed (publication_history, publication_changes). */
  readonly publication: Omit<PublicationRecord, 'id'>;
  /**
   * The delta's trends: its datasets' series appended after the kept ones (`append`, the default), or every series
   * of the hub, replacing the table (`replace`: the end year or the periods moved).
   */
  readonly trends?: 'append' | 'replace';
  /** Every series recomputed from the merged observations for these periods: a removal that moved the end year. */
  readonly recomputeTrends?: readonly Period[];
}

/** Rewritten whole after the change, in the order writeStatistics gives them (all small). */
const reordered: readonly { table: StorageTable; order: string }[] = [
  { table: 'datasets', order: 'CAST("Id" AS VARCHAR)' },
  { table: 'location_regions', order: '"RegionId", "LocationId"' },
  { table: 'observation_rollup', order: keysOf('observation_rollup') },
  { table: 'observation_region_rollup', order: keysOf('observation_region_rollup') },
  { table: 'dataset_files', order: '"DOI", "Format"' },
  { table: 'unit_conversions', order: keysOf('unit_conversions') },
  { table: 'dataset_search', order: '"DOI"' },
];

function keysOf(table: StorageTable): string {
  return columnNames(table)
    .filter((c) => c !== 'n')
    .map(ident)
    .join(', ');
}

export interface MergeOptions {
  /** The copy of `target` started early (build-file.ts, startCopy); started here when absent. */
  readonly copy?: Copy;
  /** INGEST_MEMORY_LIMIT as for the build; the merge streams, so it never comes near it. */
  readonly memoryLimitBytes: number;
}

/** Publishes `change` over `target`; says what it computed of the trends when it recomputed them. */
export async function publishChange(target: string, change: Change, options: MergeOptions): Promise<{ readonly trends?: TrendsWritten }> {
  const copy = options.copy ?? startCopy(target);
  const path = copy.path;
  await copy.done;
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  try {
    instance = await DuckDBInstance.create(path, { preserve_insertion_order: 'true', memory_limit: `${options.memoryLimitBytes}B` });
    conn = await instance.connect();
    if (change.delta) await run(conn, `ATTACH ${literal(change.delta)} AS delta (READ_ONLY)`);
    await run(conn, 'BEGIN TRANSACTION');
    await dropDatasets(conn, change.drop);
    if (change.delta && change.trends === 'replace') await run(conn, 'DELETE FROM trends');
    if (change.delta) await appendDelta(conn);
    let trends: TrendsWritten | undefined;
    if (change.recomputeTrends) {
      await run(conn, 'DELETE FROM trends');
      trends = await writeTrends(conn, { kind: 'build' }, change.recomputeTrends);
    }
    for (const { table, order } of reordered) await rewriteInOrder(conn, table, order);
    await recordPublication(conn, { id: change.meta.publicationId, ...change.publication });
    await run(conn, 'DELETE FROM tributary_meta');
    await writeMeta(conn, change.meta, STORAGE_SCHEMA_VERSION);
    await run(conn, 'COMMIT');
    if (change.delta) await run(conn, 'DETACH delta');
    await run(conn, 'CHECKPOINT');
    conn.closeSync();
    conn = undefined;
    instance.closeSync();
    instance = undefined;
    if (existsSync(`${path}.wal`)) throw new Error('the merged file still has a write-ahead log after CHECKPOINT');
    await fsyncPath(path);
    await rename(path, target);
    await fsyncPath(dirname(target));
    return trends ? { trends } : {};
  } catch (err) {
    conn?.closeSync();
    instance?.closeSync();
    await removeBuildFiles(path);
    throw err;
  }
}

/**
 * Deletes every row of the datasets `dois`. Their observations are found by Id range, read from their locations
 * (each location holds one contiguous range), so the delete touches only their row groups (zone maps).
 */
async function dropDatasets(conn: DuckDBConnection, dois: readonly string[]): Promise<void> {
  if (dois.length === 0) return;
  const inDois = `"DOI" IN (${placeholders(dois.length)})`;
  const ranges = await all(conn, `SELECT "DOI", min(first_obs_id) AS lo, max(last_obs_id) AS hi FROM locations WHERE ${inDois} GROUP BY "DOI"`, dois);
  for (const r of ranges) {
    await run(conn, 'DELETE FROM observations WHERE "Id" BETWEEN $1 AND $2 AND "DOI" = $3', [r.lo as bigint, r.hi as bigint, String(r.DOI)]);
    // Its comparisons are the Id range of its observations × 4096 (guideline_comparisons' Id), zone maps again.
    await run(conn, 'DELETE FROM guideline_comparisons WHERE "Id" BETWEEN $1 * 4096 AND $2 * 4096 + 4095 AND "DOI" = $3', [r.lo as bigint, r.hi as bigint, String(r.DOI)]);
  }
  const theirLocations = `"LocationId" IN (SELECT "Id" FROM locations WHERE ${inDois})`;
  await run(conn, `DELETE FROM observation_stats WHERE ${theirLocations}`, dois);
  await run(conn, `DELETE FROM observation_value_stats WHERE ${theirLocations}`, dois);
  await run(conn, `DELETE FROM location_regions WHERE ${theirLocations}`, dois);
  await run(conn, `DELETE FROM location_summaries WHERE ${inDois}`, dois);
  for (const table of comparisonStatTables) await run(conn, `DELETE FROM ${table} WHERE ${inDois}`, dois);
  // A dropped dataset's files leave the listing; the files themselves go once no served publication lists them.
  for (const table of ['locations', 'datasets', 'observation_rollup', 'observation_region_rollup', 'dataset_files', 'water_quality_index', 'trends', 'dataset_search']) {
    await run(conn, `DELETE FROM ${ident(table)} WHERE ${inDois}`, dois);
  }
}

/** Appends every table of the delta; its rows are in their documented order already (writeStatistics). */
async function appendDelta(conn: DuckDBConnection): Promise<void> {
  // dataset_files: the delta's datasets' files, written before the delta was closed (dataset-files.ts).
  // guideline_comparisons and water_quality_index: the delta's are numbered after the hub's (observation and
  // location Ids), so appending keeps both in their order; location_summaries, trends and the comparisons' statistics
  // likewise (by LocationId first). A delta that holds every series has had the table emptied first.
  for (const table of ['observations', 'observation_stats', 'observation_value_stats', 'locations', 'location_regions', 'datasets', 'observation_rollup', 'observation_region_rollup', 'dataset_files', 'location_summaries', 'guideline_comparisons', ...comparisonStatTables, 'water_quality_index', 'trends', 'dataset_search'] as const) {
    const cols = columnNames(table).map(ident).join(', ');
    await run(conn, `INSERT INTO ${ident(table)} (${cols}) SELECT ${cols} FROM delta.${ident(table)}`);
  }
  // A factor is the same whichever build asked for it: the delta's pairs the hub has not (a removed dataset's stay).
  const units = columnNames('unit_conversions').map(ident);
  const pair = units.slice(0, 2).map((c) => `u.${c} = d.${c}`).join(' AND ');
  await run(conn, `INSERT INTO unit_conversions (${units.join(', ')}) SELECT ${units.map((c) => `d.${c}`).join(', ')} FROM delta.unit_conversions d WHERE NOT EXISTS (SELECT 1 FROM unit_conversions u WHERE ${pair})`);
  // The guideline summary is the ingest's own (ingest/guidelines/): each publish serves the one it compared with.
  const cols = columnNames('guidelines').map(ident).join(', ');
  await run(conn, 'DELETE FROM guidelines');
  await run(conn, `INSERT INTO guidelines (${cols}) SELECT ${cols} FROM delta.guidelines ORDER BY "Id"`);
}

async function rewriteInOrder(conn: DuckDBConnection, table: StorageTable, order: string): Promise<void> {
  const cols = columnNames(table).map(ident).join(', ');
  await run(conn, `CREATE OR REPLACE TEMP TABLE reordered AS SELECT ${cols} FROM ${ident(table)}`);
  await run(conn, `DELETE FROM ${ident(table)}`);
  await run(conn, `INSERT INTO ${ident(table)} (${cols}) SELECT ${cols} FROM reordered ORDER BY ${order}`);
  await run(conn, 'DROP TABLE reordered');
}

/**
 * How much memory and temporary disk the API's DuckDB may take (issue 56 item 1), derived from the machine when the
 * operator sets nothing: DuckDB's own default memory limit is 80 % of RAM per instance and its spill is bounded only by
 * the disk, so a few heavy `$apply`s could take the machine from Node, the export and cursor instances and the OS.
 *
 *   reserved      = 1 GiB (Node: heap, pages' buffers, cursors' read-aheads) + the export instance (256 MiB)
 *                   + the cursor instance (64 MiB + 32 MiB per further cursor of CURSOR_CACHE_SIZE)
 *   memory_limit  = min(½ × (RAM − reserved), MAX_CONCURRENT_QUERIES × 1 GiB), at least 256 MiB
 *   temp bound    = 2 × memory_limit, at most half the temp directory's free space at start
 *
 * Half of what is left stays for the OS's page cache (DuckDB reads the published file through it) and an ingest on
 * the same machine; a query then has 1 GiB when every slot runs one, and more when fewer run. On 24 GiB with the
 * defaults (8 queries, 4 cursors) that is 8 GiB for queries, 16 GiB of spill (docs/deployment.md, Capacity). A query
 * past the bound fails with DuckDB's Out of Memory error, answered 503 `query_too_large` (limits/out-of-memory.ts).
 */
import { cursorMemoryLimitMB, EXPORT_MEMORY_LIMIT } from './extract/extract.js';

const MIB = 1024 * 1024;
/** Node's own share: its heap, the pages' buffers and the cursors' read-aheads (16 MiB each). */
export const NODE_RESERVE_MIB = 1024;
/** What one running query may count on when every slot runs one. */
export const QUERY_MEMORY_MIB = 1024;
const FLOOR_MIB = 256;

export interface MachineFacts {
  /** os.totalmem() */
  readonly totalMemBytes: number;
  /** Free bytes of the temp directory's file system at start (fs.statfs), when known. */
  readonly freeTempBytes?: number | undefined;
  readonly maxConcurrentQueries: number;
  readonly cursorCacheSize: number;
}

export interface DuckdbMemory {
  /** DuckDB's `memory_limit`, e.g. '8192MiB' (or the operator's DUCKDB_MEMORY_LIMIT as given). */
  readonly memoryLimit: string;
  /** DuckDB's `max_temp_directory_size`. */
  readonly maxTempDirectorySize: string;
}

/** The MiB outside DuckDB's query instance: Node, the export instance, the cursor instance. */
export function reservedMiB(cursorCacheSize: number): number {
  const exportMiB = Number(/^(\d+)MB$/.exec(EXPORT_MEMORY_LIMIT)![1]);
  return NODE_RESERVE_MIB + exportMiB + (cursorCacheSize > 0 ? cursorMemoryLimitMB(cursorCacheSize) : 0);
}

/**
 * @example defaultMemoryLimitMiB({ totalMemBytes: 24 * 2 ** 30, maxConcurrentQueries: 8, cursorCacheSize: 4 }) // 8192
 * @example defaultMemoryLimitMiB({ totalMemBytes: 4 * 2 ** 30, maxConcurrentQueries: 8, cursorCacheSize: 4 }) // 1328
 */
export function defaultMemoryLimitMiB(m: MachineFacts): number {
  const left = Math.floor((m.totalMemBytes / MIB - reservedMiB(m.cursorCacheSize)) / 2);
  return Math.max(FLOOR_MIB, Math.min(left, m.maxConcurrentQueries * QUERY_MEMORY_MIB));
}

/** The settings: the operator's when given, else derived from the machine. */
export function duckdbMemory(m: MachineFacts, given: { readonly memoryLimit?: string | undefined; readonly maxTempDirectorySize?: string | undefined } = {}): DuckdbMemory {
  const limitMiB = defaultMemoryLimitMiB(m);
  const spillMiB = Math.min(2 * limitMiB, m.freeTempBytes === undefined ? Infinity : Math.floor(m.freeTempBytes / MIB / 2));
  return {
    memoryLimit: given.memoryLimit ?? `${limitMiB}MiB`,
    maxTempDirectorySize: given.maxTempDirectorySize ?? `${Math.max(0, spillMiB)}MiB`,
  };
}

/**
 * One published DuckDB file, opened read-only: the parts put together. Opening checks the storage schema version
 * and the physical Id order (db/order-check.ts) and measures column widths (db/column-widths.ts); queries run on
 * connections of their own (db/query-runner.ts); cursors run on a second instance (db/cursor-instance.ts).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { STORAGE_SCHEMA_VERSION } from '../../../schemas/index.js';
import type { CompiledQuery } from '../query/sql.js';
import { measureWidths, type ColumnWidths } from './column-widths.js';
import type { Cursor } from './cursor.js';
import { CursorCache, type CursorCacheOptions } from './cursor-cache.js';
import { createCursorInstance } from './cursor-instance.js';
import { keepsOrderCheck, storedInIdOrder } from './order-check.js';
import { createPipePool } from './pipe-pool.js';
import { createQueryRunner, type QueryRunner } from './query-runner.js';

export type { ColumnChunk } from './query-runner.js';
export type { ColumnWidths } from './column-widths.js';

export interface SnapshotOptions {
  readonly threads?: number;
  readonly memoryLimit?: string;
  /** Cursors for clients that follow next links (db/cursor-cache.ts); none when left out or `max` is 0. */
  readonly cursors?: CursorCacheOptions & { readonly memoryLimit?: string };
}

export interface Snapshot extends QueryRunner {
  readonly path: string;
  /** Measured once at open on a sample of each table; absent when it could not be measured. */
  readonly columnWidths?: ColumnWidths;
  /** Whether `observations` is physically in Id order (checked once at open); pages rely on it. */
  readonly ordered: boolean;
  /**
   * Whether DuckDB returns this query's rows in the table's stored order: its plan has no join and no
   * streaming (possibly unordered) limit. Checked with EXPLAIN; a yes is cached per SQL text.
   */
  keepsOrder(q: CompiledQuery, signal?: AbortSignal): Promise<boolean>;
  /** Opens a cursor on a framed query (compileCursorRows), on the cursor instance (db/cursor-instance.ts). */
  openCursor(q: CompiledQuery): Promise<Cursor>;
  /** Where cursors wait between requests; undefined when cursors are off. */
  readonly cursors?: CursorCache;
  /** Cursors whose COPY has not yet been closed (for tests: returns to zero once they are closed or expire). */
  readonly cursorsOpen: number;
  /** Named pipes held by running COPYs (for tests: returns to zero when every page is done). */
  readonly pipesInUse: number;
  /** Closes now; resolves once the cursors' COPYs have let go and their instance is closed. */
  close(): Promise<void>;
}

export async function openSnapshot(path: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const config: Record<string, string> = { access_mode: 'READ_ONLY' };
  if (opts.threads) config['threads'] = String(opts.threads);
  if (opts.memoryLimit) config['memory_limit'] = opts.memoryLimit;
  const instance = await DuckDBInstance.create(path, config);
  const pipes = createPipePool();
  const runner = createQueryRunner(instance, pipes);
  const cursors = opts.cursors && opts.cursors.max > 0 ? new CursorCache(opts.cursors) : undefined;
  const cursorInstance = createCursorInstance(path, pipes, { config, ...(opts.cursors?.memoryLimit ? { memoryLimit: opts.cursors.memoryLimit } : {}) });
  const close = () => {
    instance.closeSync();
    // Cursors first: a COPY blocked on a full pipe has to be interrupted and drained before its instance closes.
    return cursorInstance.close(() => cursors?.close() ?? Promise.resolve()).finally(() => pipes.close());
  };

  let ordered: boolean;
  let columnWidths: ColumnWidths | undefined;
  try {
    await checkSchemaVersion(path, runner);
    ordered = await storedInIdOrder(runner.columns);
    columnWidths = await measureWidths(runner.columns).catch(() => undefined);
  } catch (err) {
    void close();
    throw err;
  }
  return {
    path,
    ordered,
    columnWidths,
    columns: runner.columns,
    copyText: runner.copyText,
    streamColumns: runner.streamColumns,
    get running() {
      return runner.running;
    },
    keepsOrder: keepsOrderCheck(runner.columns),
    openCursor: (q) => cursorInstance.open(q),
    cursors,
    get cursorsOpen() {
      return cursorInstance.opened;
    },
    get pipesInUse() {
      return pipes.inUse;
    },
    close,
  };
}

/** Ingest does not build on a file of another version either (its Ids could not carry over): a new file it is. */
async function checkSchemaVersion(path: string, runner: QueryRunner): Promise<void> {
  const meta = await runner.columns({ sql: `SELECT value FROM "tributary_meta" WHERE key = 'schema_version'`, params: [] });
  const version = meta['value']?.[0];
  if (version === STORAGE_SCHEMA_VERSION) return;
  throw new Error(
    `${path} has storage schema version ${String(version)}; this API reads version ${STORAGE_SCHEMA_VERSION}. ` +
      `Ingest the sources into a new file (make ingest DUCKDB_PATH=<new file>) and point DUCKDB_PATH at it; for the sample, delete ${path} and make start rebuilds it.`,
  );
}

/**
 * One published DuckDB file, opened read-only: the parts put together. Opening checks the storage schema version
 * and the physical Id order (db/order-check.ts) and measures column widths (db/column-widths.ts); queries run on
 * connections of their own (db/query-runner.ts); pages' text and cursors go through the extract façade
 * (db/extract/extract.ts).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import { STORAGE_SCHEMA_VERSION, type ResourceTable } from '../../../schemas/index.js';
import type { CompiledQuery } from '../query/sql.js';
import { measureWidths, type ColumnWidths } from './column-widths.js';
import { createExtract, type Cursor, type ExtractCursors, type ExtractOptions } from './extract/extract.js';
import { keepsOrderCheck, tablesInIdOrder } from './order-check.js';
import { createQueryRunner, type QueryRunner } from './query-runner.js';

export type { ChunkColumn, ColumnChunk } from './query-runner.js';
export type { ColumnWidths } from './column-widths.js';

export interface SnapshotOptions {
  readonly threads?: number;
  /** DuckDB's `memory_limit` of the query instance (db/duckdb-memory.ts derives the API's). */
  readonly memoryLimit?: string;
  /**
   * Where the query instance spills (each snapshot in a folder of its own below it, so two open publications never
   * share DuckDB's temp files) and how much it may (`max_temp_directory_size`). DuckDB's defaults when left out.
   */
  readonly tempDirectory?: string;
  readonly maxTempDirectorySize?: string;
  /** Cursors for clients that follow next links (db/extract/cursor-cache.ts); none when left out or `max` is 0. */
  readonly cursors?: ExtractOptions['cursors'];
}

export interface Snapshot extends QueryRunner {
  readonly path: string;
  /** The file's `tributary_meta.publication_id`; absent in files published before ingest wrote one. */
  readonly publication?: string;
  /** Measured once at open on a sample of each table; absent when it could not be measured. */
  readonly columnWidths?: ColumnWidths;
  /**
   * The tables of the resources whose pages are declared `stored` (schemas/catalogue.ts) found physically in Id order
   * when the file opened: their pages may scan in stored order (exec/page-window.ts); the others are sorted.
   */
  readonly inIdOrder: ReadonlySet<ResourceTable>;
  /**
   * Whether DuckDB returns this query's rows in the table's stored order: its plan has no join and no
   * streaming (possibly unordered) limit. Checked with EXPLAIN; a yes is cached per SQL text.
   */
  keepsOrder(q: CompiledQuery, signal?: AbortSignal): Promise<boolean>;
  /** Opens a cursor on a query of `id` and `row` (compileCursorRows), on the cursor instance. */
  openCursor(q: CompiledQuery): Promise<Cursor>;
  /** Cursors between requests (the execution stage's way in); undefined when cursors are off. */
  readonly cursors?: ExtractCursors;
  /** Cursors whose COPY has not yet been closed (for tests: returns to zero once they are closed or expire). */
  readonly cursorsOpen: number;
  /** Named pipes held by running COPYs (for tests: returns to zero when every page is done). */
  readonly pipesInUse: number;
  /** Closes now; resolves once the cursors' COPYs have let go and their instance is closed. */
  close(): Promise<void>;
}

/** Snapshots opened by this process: each spills into a folder of its own. */
let opened = 0;

export async function openSnapshot(path: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const config: Record<string, string> = { access_mode: 'READ_ONLY' };
  if (opts.threads) config['threads'] = String(opts.threads);
  if (opts.memoryLimit) config['memory_limit'] = opts.memoryLimit;
  // The export and cursor instances keep memory limits of their own (db/extract/) and do not spill into this folder.
  const extract = createExtract(path, { config: { ...config }, ...(opts.cursors ? { cursors: opts.cursors } : {}) });
  if (opts.tempDirectory) config['temp_directory'] = join(opts.tempDirectory, `snapshot-${process.pid}-${++opened}`);
  if (opts.maxTempDirectorySize) config['max_temp_directory_size'] = opts.maxTempDirectorySize;
  const instance = await DuckDBInstance.create(path, config).catch(async (err: unknown) => {
    await extract.close();
    throw err;
  });
  const runner = createQueryRunner(instance, extract);
  const close = () => {
    instance.closeSync();
    return extract.close();
  };

  let inIdOrder: ReadonlySet<ResourceTable>;
  let columnWidths: ColumnWidths | undefined;
  let publication: string | undefined;
  try {
    publication = await checkMeta(path, runner);
    inIdOrder = await tablesInIdOrder(runner.columns);
    columnWidths = await measureWidths(runner.columns).catch(() => undefined);
  } catch (err) {
    void close();
    throw err;
  }
  return {
    path,
    ...(publication ? { publication } : {}),
    inIdOrder,
    columnWidths,
    columns: runner.columns,
    copyText: runner.copyText,
    copyExport: runner.copyExport,
    streamColumns: runner.streamColumns,
    get running() {
      return runner.running;
    },
    keepsOrder: keepsOrderCheck(runner.columns),
    openCursor: (q) => extract.openCursor(q),
    cursors: extract.cursors,
    get cursorsOpen() {
      return extract.cursorsOpen;
    },
    get pipesInUse() {
      return extract.pipesInUse;
    },
    close,
  };
}

/**
 * Checks the storage schema version and returns the publication id. Ingest does not build on a file of another
 * version either (its Ids could not carry over): a new file it is.
 */
async function checkMeta(path: string, runner: QueryRunner): Promise<string | undefined> {
  const meta = await runner.columns({ sql: `SELECT key, value FROM "tributary_meta" WHERE key IN ('schema_version', 'publication_id')`, params: [] });
  const value = (key: string) => meta['value']?.[(meta['key'] ?? []).indexOf(key)];
  const version = value('schema_version');
  if (version === STORAGE_SCHEMA_VERSION) return (value('publication_id') as string | undefined) ?? undefined;
  throw new Error(
    `${path} has storage schema version ${String(version)}; this API reads version ${STORAGE_SCHEMA_VERSION}. ` +
      `Ingest the sources into a new file (make ingest DUCKDB_PATH=<new file>) and point DUCKDB_PATH at it; for the sample, delete ${path} and make start rebuilds it.`,
  );
}

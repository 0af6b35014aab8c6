/**
 * One published DuckDB file, opened read-only. Each query gets its own connection so that an abort can
 * interrupt exactly that query (`connection.interrupt()`), and so that a slow query never blocks another.
 */
import { DuckDBConnection, DuckDBInstance, JSDuckDBValueConverter, type DuckDBDataChunk, type DuckDBValue } from '@duckdb/node-api';
import { resources, STORAGE_SCHEMA_VERSION } from '../../../schemas/index.js';
import type { Key } from '../query/plan.js';
import { constant, ident, literal, Params, type CompiledQuery } from '../query/sql.js';
import { copyThroughPipe, startThreadedPipeCopy, type RowEnd } from './copy-text.js';
import { openCursor, type Cursor } from './cursor.js';
import { CursorCache, type CursorCacheOptions } from './cursor-cache.js';
import { createPipePool } from './pipe-pool.js';

export interface SnapshotOptions {
  readonly threads?: number;
  readonly memoryLimit?: string;
  /** Cursors for clients that follow next links (db/cursor-cache.ts); none when left out or `max` is 0. */
  readonly cursors?: CursorCacheOptions & { readonly memoryLimit?: string };
}

/** A chunk of typed columns: `columns[i][row]`. */
export interface ColumnChunk {
  readonly ids: readonly Key[];
  readonly columns: readonly (readonly unknown[])[];
}

/** Average JSON text width in bytes of each served column, keyed `table.column` (for the page-size limit). */
export type ColumnWidths = ReadonlyMap<string, number>;

export interface Snapshot {
  readonly path: string;
  /** Measured once at open on a sample of each table; absent when it could not be measured. */
  readonly columnWidths?: ColumnWidths;
  /** Whether `observations` is physically in Id order (checked once at open); pages rely on it. */
  readonly ordered: boolean;
  /** Runs a query with a small result (Ids, counts) and returns its columns by name. */
  columns(q: CompiledQuery, signal?: AbortSignal): Promise<Record<string, DuckDBValue[]>>;
  /**
   * Streams the text of a one-column query (`row`: a JSON object or CSV line per row), each row followed by
   * `rowEnd`, as DuckDB's COPY writes it (db/copy-text.ts); returns the number of rows written. The query is
   * interrupted when the consumer stops or aborts.
   */
  copyText(q: CompiledQuery, rowEnd: RowEnd, signal?: AbortSignal): AsyncGenerator<Uint8Array, number>;
  /** Streams `id, c0, c1, …` as JS values (Dates, bigints, arrays) per column, for typed writers (Arrow). */
  streamColumns(q: CompiledQuery, signal?: AbortSignal): AsyncGenerator<ColumnChunk>;
  /**
   * Whether DuckDB returns this query's rows in the table's stored order: its plan has no join and no
   * streaming (possibly unordered) limit. Checked with EXPLAIN; a yes is cached per SQL text.
   */
  keepsOrder(q: CompiledQuery, signal?: AbortSignal): Promise<boolean>;
  /**
   * Opens a cursor on a framed query (compileCursorRows). Cursors run on a second, single-threaded DuckDB instance
   * over the same file: a COPY that uses every thread renders row groups ahead of a slow reader and holds them in
   * memory (2.7 GB at 2M rows, docs/performance.md design 8); one thread renders only as fast as the socket takes it.
   */
  openCursor(q: CompiledQuery): Promise<Cursor>;
  /** Where cursors wait between requests; undefined when cursors are off. */
  readonly cursors?: CursorCache;
  /** Queries running now, cursors' COPYs not included (for tests and /readyz). */
  readonly running: number;
  /** Cursors whose COPY has not yet been closed (for tests: returns to zero once they are closed or expire). */
  readonly cursorsOpen: number;
  /** Named pipes held by running COPYs (for tests: returns to zero when every page is done). */
  readonly pipesInUse: number;
  /** Closes now; resolves once the cursors' COPYs have let go and their instance is closed. */
  close(): Promise<void>;
}

/**
 * The cursor instance's memory limit, in MB, for `open` cursors. Its buffer pool otherwise keeps every block a full
 * scan reads (the API's RSS grew 143 MB over a 10M-row extract; 85 MB at 128MB, 44 MB at 64MB). At 32MB one COPY
 * failed to allocate 16 MiB: 64MB leaves one cursor twice that. Each further cursor's COPY holds ~16 MiB more, so a
 * fixed 64MB made the third of three cursors open at once fail (Out of Memory with 47.9 of 61 MiB used; its page
 * was finished from its window, more slowly): the limit follows the number open, 32MB each beyond the first.
 */
function cursorMemoryLimitMB(open: number): number {
  return 64 + 32 * Math.max(0, open - 1);
}

export async function openSnapshot(path: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const config: Record<string, string> = { access_mode: 'READ_ONLY' };
  if (opts.threads) config['threads'] = String(opts.threads);
  if (opts.memoryLimit) config['memory_limit'] = opts.memoryLimit;
  const instance = await DuckDBInstance.create(path, config);
  let running = 0;
  let cursorsOpen = 0;
  const pipes = createPipePool();
  const cursors = opts.cursors && opts.cursors.max > 0 ? new CursorCache(opts.cursors) : undefined;
  /** Created on the first cursor; closed with the snapshot once every cursor has let go. */
  let extract: Promise<DuckDBInstance> | undefined;
  let closed = false;
  /**
   * Sets the cursor instance's limit for the cursors open when it runs (cursorMemoryLimitMB). Chained, so that the
   * last one to run sees the last count, and so that close() can wait for it: a connection opened on an instance
   * being closed crashes the process. Best effort: a failure leaves the previous limit.
   */
  let resizing = Promise.resolve();
  const resizeCursorMemory = (inst: DuckDBInstance) =>
    (resizing = resizing
      .then(async () => {
        if (closed) return;
        const conn = await inst.connect();
        try {
          await conn.run(`SET memory_limit = ${literal(`${cursorMemoryLimitMB(cursorsOpen)}MB`)}`);
        } finally {
          conn.closeSync();
        }
      })
      .catch(() => undefined));
  /** SQL texts whose plan keeps stored order (see keepsOrder: only a yes is remembered). */
  const ordersKept = new Set<string>();

  /** A connection of its own for one query, interrupted when the request aborts, counted while open. */
  async function acquireConnection(signal: AbortSignal | undefined): Promise<{ conn: DuckDBConnection; done: () => void }> {
    signal?.throwIfAborted();
    const conn = await instance.connect();
    const onAbort = () => conn.interrupt();
    signal?.addEventListener('abort', onAbort, { once: true });
    running++;
    return {
      conn,
      done() {
        running--;
        signal?.removeEventListener('abort', onAbort);
        // Interrupting first stops DuckDB from computing rows nobody will read (a consumer that left early).
        conn.interrupt();
        conn.closeSync();
      },
    };
  }

  /** Streams a query chunk by chunk; `done` runs on completion, on error and when the consumer returns early. */
  async function* chunks<T>(q: CompiledQuery, signal: AbortSignal | undefined, convert: (chunk: DuckDBDataChunk) => T): AsyncGenerator<T> {
    const { conn, done } = await acquireConnection(signal);
    try {
      const result = await conn.stream(q.sql, q.params as DuckDBValue[]);
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        yield convert(chunk);
      }
    } finally {
      done();
    }
  }

  async function withConnection<T>(signal: AbortSignal | undefined, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const { conn, done } = await acquireConnection(signal);
    try {
      return await fn(conn);
    } finally {
      done();
    }
  }

  const snapshot: Snapshot = {
    path,
    ordered: true,
    get running() {
      return running;
    },
    columns: (q, signal) =>
      withConnection(signal, async (conn) => {
        const reader = await conn.runAndReadAll(q.sql, q.params as DuckDBValue[]);
        return reader.getColumnsObject();
      }),
    get pipesInUse() {
      return pipes.inUse;
    },
    cursors,
    get cursorsOpen() {
      return cursorsOpen;
    },
    async openCursor(q) {
      if (closed) throw new Error(`${path} is closed`);
      const fixedLimit = opts.cursors?.memoryLimit;
      const creating = (extract ??= DuckDBInstance.create(path, { ...config, threads: '1', memory_limit: fixedLimit ?? `${cursorMemoryLimitMB(1)}MB` }));
      // A failed creation is not remembered: the next cursor tries again (the failure may have been passing).
      creating.catch(() => {
        if (extract === creating) extract = undefined;
      });
      const conn = await (await creating).connect();
      let pipe: string;
      try {
        pipe = await pipes.acquire();
      } catch (err) {
        conn.closeSync();
        throw err;
      }
      cursorsOpen++;
      const cursorInstance = await creating;
      if (!fixedLimit) await resizeCursorMemory(cursorInstance);
      return openCursor(startThreadedPipeCopy(conn, q, pipe, '\n'), () => {
        cursorsOpen--;
        conn.closeSync();
        pipes.release(pipe);
        if (!fixedLimit) void resizeCursorMemory(cursorInstance);
      });
    },
    async *copyText(q, rowEnd, signal) {
      const { conn, done } = await acquireConnection(signal);
      let pipe: string | undefined;
      try {
        pipe = await pipes.acquire();
        return yield* copyThroughPipe(conn, q, pipe, rowEnd);
      } finally {
        done();
        if (pipe) pipes.release(pipe);
      }
    },
    streamColumns(q, signal) {
      return chunks(q, signal, (chunk) => {
        const columns = Array.from({ length: chunk.columnCount }, (_, i) => chunk.convertColumnValues(i, JSDuckDBValueConverter));
        return { ids: columns[0] as Key[], columns: columns.slice(1) };
      });
    },
    async keepsOrder(q, signal) {
      if (ordersKept.has(q.sql)) return true;
      const plan = await snapshot.columns({ sql: `EXPLAIN ${q.sql}`, params: q.params }, signal);
      const text = (plan['explain_value'] ?? []).map(String).join('\n');
      const keeps = !/JOIN|STREAMING_LIMIT|UNION|HASH_GROUP_BY/.test(text);
      // Only a yes is cached. The plan is made for these parameter values: a window that covers the whole table
      // loses its filter and becomes a bare scan under a STREAMING_LIMIT, a no that would then send every later
      // page with the same SQL text (other values) to the sorted path. A yes holds for any values: joins,
      // unions and aggregates come from the SQL text, not from the values.
      if (keeps) {
        if (ordersKept.size >= 512) ordersKept.delete(ordersKept.values().next().value!);
        ordersKept.add(q.sql);
      }
      return keeps;
    },
    close: () => {
      closed = true;
      instance.closeSync();
      // Cursors first: a COPY blocked on a full pipe has to be interrupted and drained before its instance closes.
      return (cursors?.close() ?? Promise.resolve())
        .then(() => resizing)
        .then(async () => (await extract)?.closeSync())
        .catch(() => undefined)
        .finally(() => pipes.close());
    },
  };

  try {
    const meta = await snapshot.columns({ sql: `SELECT value FROM "tributary_meta" WHERE key = 'schema_version'`, params: [] });
    const version = meta['value']?.[0];
    if (version !== STORAGE_SCHEMA_VERSION) {
      // Ingest does not build on a file of another version either (its Ids could not carry over): a new file it is.
      throw new Error(
        `${path} has storage schema version ${String(version)}; this API reads version ${STORAGE_SCHEMA_VERSION}. ` +
          `Ingest the sources into a new file (make ingest DUCKDB_PATH=<new file>) and point DUCKDB_PATH at it; for the sample, delete ${path} and make start rebuilds it.`,
      );
    }
    const disorder = await snapshot.columns({
      sql: `SELECT count(*) AS n FROM (SELECT "Id" - lag("Id") OVER () AS step FROM "observations") WHERE step <= 0`,
      params: [],
    });
    (snapshot as { ordered: boolean }).ordered = disorder['n']?.[0] === 0n;
    (snapshot as { columnWidths?: ColumnWidths }).columnWidths = await measureWidths(snapshot).catch(() => undefined);
  } catch (err) {
    void snapshot.close();
    throw err;
  }
  return snapshot;
}

/**
 * The average width of every served column as the JSON writer renders it, on a sample of rows: what a page of
 * n rows will weigh, known before the page is streamed. One query per table, a few milliseconds each.
 */
async function measureWidths(snapshot: Snapshot): Promise<ColumnWidths> {
  const widths = new Map<string, number>();
  const byTable = new Map<string, Set<string>>();
  for (const r of resources) for (const f of r.fields) (byTable.get(r.table) ?? byTable.set(r.table, new Set()).get(r.table)!).add(f.column);
  for (const [table, set] of byTable) {
    const columns = [...set];
    const avg = columns.map((c, i) => `avg(strlen(COALESCE(to_json(${ident(c)})::VARCHAR, ${constant('null')})))::DOUBLE AS w${i}`).join(', ');
    // Ten evenly spaced Id windows of 500 rows, as constant ranges so zone maps let DuckDB read only those:
    // a reservoir sample of the whole table decompressed every column of every row (~100 MB at 10M rows).
    let sample = `SELECT * FROM ${ident(table)} LIMIT 5000`;
    const params = new Params();
    if (table !== 'datasets') {
      const b = await snapshot.columns({ sql: `SELECT min("Id") AS lo, max("Id") AS hi FROM ${ident(table)}`, params: [] });
      const lo = BigInt((b['lo']?.[0] as bigint | null) ?? 0n);
      const hi = BigInt((b['hi']?.[0] as bigint | null) ?? 0n);
      const windows = Array.from({ length: 10 }, (_, i) => {
        const first = lo + ((hi - lo) * BigInt(i)) / 10n;
        const bound = (value: bigint) => params.bind({ sqlType: 'BIGINT', value });
        return `SELECT * FROM ${ident(table)} WHERE "Id" BETWEEN ${bound(first)} AND ${bound(first + 499n)}`;
      });
      sample = windows.join(' UNION ALL ');
    }
    const cols = await snapshot.columns({ sql: `SELECT ${avg} FROM (${sample})`, params: params.values });
    columns.forEach((c, i) => {
      const w = cols[`w${i}`]?.[0];
      if (typeof w === 'number') widths.set(`${table}.${c}`, Math.ceil(w));
    });
  }
  return widths;
}

/**
 * The extract machinery behind one entry point: a page's text written by DuckDB's COPY into a named pipe
 * (copy-text.ts, pipe-pool.ts), and cursors that continue an extract from page to page (cursor.ts, row-frame.ts,
 * pipe-thread.ts, pipe-worker.ts, cursor-cache.ts, cursor-instance.ts). The snapshot builds it; the execution stage
 * (exec/page-text.ts) decides when to use a cursor and what to do when one fails, through `ExtractCursors`.
 *
 * Invariants, each with the test that pins it (files in db/extract/ unless named otherwise):
 * 1. A page's COPY gives exactly the rows of its query, text verbatim, each followed by the row end, and reports
 *    its row count: copy-text.test.ts 'writes each row as it is…', 'keeps text verbatim…'.
 * 2. Every way a COPY ends (read to the end, abandoned, aborted, failed mid-way or at once) leaves no query
 *    running and gives its pipe back; a failed page is cut, never completed: copy-text.test.ts, 'a consumer that
 *    stops…', 'an abort signal mid-page…', 'a query that fails part-way…'.
 *    A page's COPY is read to its end whether or not its consumer keeps up, so no writer stays blocked on the
 *    snapshot's multi-threaded instance (where a blocked sink makes the query's thread poll for tasks, a core
 *    spinning): stall.server.test.ts 'eight stalled $top=10000 pages cost no CPU…'.
 * 3. The row frame is `<Id>\x01<byte length>\x01<text>\n`, defined once (row-frame.ts: the SQL that writes it and
 *    the reader); rows are cut by length whatever their text holds: row-frame.test.ts 'cuts rows by their
 *    length…', 'gives the same rows however the stream is split…', 'a frame that is not ours fails loudly…'.
 * 4. Framed Ids are below 10^15 (MAX_FRAMED_ID: exact as JS numbers); a page whose Ids reach it never uses a
 *    cursor, it is served from its window: row-frame.test.ts 'an Id of 16 digits is not a frame…' and
 *    exec/large-ids.test.ts.
 * 5. A cursor hands out exactly the rows phase one found, each Id checked, and fails the page otherwise; it reads
 *    ahead only so far: cursor.test.ts 'hands out consecutive pages…', 'a row whose Id is not the one phase one
 *    found…', 'reads ahead only so far…'.
 * 6. Cursor identity: a cursor continues exactly the request whose cursor query (SQL text and values, the position
 *    included) it was stored under; at most CURSOR_CACHE_SIZE wait, each at most CURSOR_IDLE_MS; one opens only
 *    for a link handed out: cursor-cache.test.ts, exec/page-text.test.ts 'a page requested out of the blue…'.
 * 7. The cursor instance's memory limit is 64MB + 32MB per cursor open beyond the first (cursorMemoryLimitMB), and
 *    it closes only after its cursors and the last resize: cursor-instance.test.ts.
 * 8. The pipe's thread drains the pipe off the event loop with at most `inFlight` bytes unread, pauses for
 *    back-pressure, and ends at end-of-file: pipe-thread.test.ts. Its body is a typed function run from its source
 *    (pipe-worker.ts) and its process exit hook is registered by main.ts (stopPipeThreadsOnExit), not on import:
 *    pipe-thread.test.ts 'importing the module registers no exit hook…', 'the worker runs from its source alone…'.
 * 9. Each page's or cursor's COPY may hold a libuv thread while it waits on its pipe: main.ts sizes libuv's pool for
 *    them (limits/thread-pool.ts, before anything loads DuckDB's addon).
 * 10. A whole-result export's COPY runs on a single-threaded instance of its own, reads at most 4 MiB ahead of the
 *    socket, gives its pipe back and leaves no query running however it ends (finished, client gone, time limit,
 *    failure): copy-export.ts, routes/export.test.ts 'a client that disconnects…', 'a failure mid-stream…'.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CompiledQuery } from '../../query/sql.js';
import { copyExport, createExportInstance } from './copy-export.js';
import { copyThroughPipe, type RowEnd } from './copy-text.js';
import type { Cursor } from './cursor.js';
import { CursorCache, type CursorCacheOptions } from './cursor-cache.js';
import { createCursorInstance } from './cursor-instance.js';
import { createPipePool } from './pipe-pool.js';

export { CursorError, type Cursor } from './cursor.js';
export { SYSTEM_CLOCK, type IdleClock } from './cursor-cache.js';
export { MAX_FRAMED_ID } from './row-frame.js';
export { copySql, type RowEnd } from './copy-text.js';
export { stopPipeThreadsOnExit } from './pipe-thread.js';
// The export and cursor instances' memory, which the query instance's derived limit leaves room for (db/duckdb-memory.ts).
export { EXPORT_MEMORY_LIMIT } from './copy-export.js';
export { cursorMemoryLimitMB } from './cursor-instance.js';

export interface ExtractOptions {
  /** The snapshot's DuckDB settings; the cursor instance takes them with one thread. */
  readonly config: Readonly<Record<string, string>>;
  /** Cursors for clients that follow next links; none when left out or `max` is 0. */
  readonly cursors?: CursorCacheOptions & { readonly memoryLimit?: string };
}

/** What the execution stage asks of cursors: each keyed by its cursor query (compileCursorRows). */
export interface ExtractCursors {
  /** The cursor waiting to continue with `here`'s rows, taken out of the cache. */
  take(here: CompiledQuery): Cursor | undefined;
  /** Whether a link to `here` was handed out within CURSOR_IDLE_MS: a client paging on. Forgets it either way. */
  followed(here: CompiledQuery): boolean;
  /** Opens a cursor on `here` (rejects when it cannot: its instance out of memory, no pipe). */
  open(here: CompiledQuery): Promise<Cursor>;
  /** Remembers a link to `next` handed out by a page served without a cursor. */
  handOut(next: CompiledQuery): void;
  /** After a page: keeps the cursor for the page `next` starts, or closes it when there is none. */
  keep(cursor: Cursor, next: CompiledQuery | undefined): Promise<void>;
  /** Cursors waiting for their next request. */
  readonly size: number;
}

export interface Extract {
  /** A page's rows as text: `q`'s one text column through one COPY on `conn`, each row followed by `rowEnd`. */
  copyText(conn: DuckDBConnection, q: CompiledQuery, rowEnd: RowEnd): AsyncGenerator<Uint8Array, number>;
  /**
   * A whole result as DuckDB's COPY writes it with `options` (Parquet, CSV, NDJSON: query/compile-export.ts), on the
   * single-threaded export instance, read by a thread of its own with back-pressure (copy-export.ts); returns the
   * row count COPY reports. `signal` interrupts it.
   */
  copyExport(q: CompiledQuery, options: string, signal?: AbortSignal): AsyncGenerator<Uint8Array, number>;
  /** Undefined when cursors are off. */
  readonly cursors?: ExtractCursors;
  /** Opens a cursor whether or not cursors are kept between requests (tests). */
  openCursor(q: CompiledQuery): Promise<Cursor>;
  /** Cursors whose COPY has not yet been closed. */
  readonly cursorsOpen: number;
  /** Named pipes held by running COPYs. */
  readonly pipesInUse: number;
  /** Closes the cursors, then their instance, then removes the pipes. */
  close(): Promise<void>;
}

export function createExtract(path: string, opts: ExtractOptions): Extract {
  const pipes = createPipePool();
  const instance = createCursorInstance(path, pipes, { config: opts.config, ...(opts.cursors?.memoryLimit ? { memoryLimit: opts.cursors.memoryLimit } : {}) });
  const cache = opts.cursors && opts.cursors.max > 0 ? new CursorCache(opts.cursors) : undefined;
  const exports = createExportInstance(path, opts.config);
  const cursors: ExtractCursors | undefined = cache && {
    take: (here) => cache.take(keyOf(here)),
    followed: (here) => cache.followed(keyOf(here)),
    open: (here) => instance.open(here),
    handOut: (next) => cache.issue(keyOf(next)),
    async keep(cursor, next) {
      if (next) cache.put(keyOf(next), cursor);
      else await cursor.close();
    },
    get size() {
      return cache.size;
    },
  };
  return {
    async *copyText(conn, q, rowEnd) {
      const pipe = await pipes.acquire();
      try {
        return yield* copyThroughPipe(conn, q, pipe, rowEnd);
      } finally {
        pipes.release(pipe);
      }
    },
    async *copyExport(q, options, signal) {
      signal?.throwIfAborted();
      const conn = await exports.connect();
      const onAbort = () => conn.interrupt();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const pipe = await pipes.acquire();
        try {
          return yield* copyExport(conn, q, options, pipe);
        } finally {
          pipes.release(pipe);
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        exports.done(conn);
      }
    },
    cursors,
    openCursor: (q) => instance.open(q),
    get cursorsOpen() {
      return instance.opened;
    },
    get pipesInUse() {
      return pipes.inUse;
    },
    // Cursors first: a COPY blocked on a full pipe has to be interrupted and drained before its instance closes.
    close: () =>
      Promise.all([instance.close(() => cache?.close() ?? Promise.resolve()), exports.close()])
        .then(() => undefined)
        .finally(() => pipes.close()),
  };
}

/** The cursor query's text and values: two requests continue the same cursor exactly when these are equal. */
function keyOf(q: CompiledQuery): string {
  return JSON.stringify([q.sql, q.params], (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

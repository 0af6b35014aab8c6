/**
 * UV_THREADPOOL_SIZE for the API process. DuckDB's node bindings run each query as libuv async work, so a COPY
 * into a pipe that a slow client drains holds a libuv thread for as long as it is blocked in write(): a page's
 * export's COPY while its client reads (db/extract/copy-export.ts), a cursor's COPY while it waits between pages with
 * its read-ahead full (db/extract/cursor.ts). With only libuv's default 4 threads, four slow clients stop every file
 * read, DNS lookup and new query of the process. So: one thread per query the gate admits at once
 * (MAX_CONCURRENT_QUERIES) and one per response parked on its client (limits/query-gate.ts: MAX_PARKED_RESPONSES,
 * four per slot by default), one per cursor that may wait (CURSOR_CACHE_SIZE), and libuv's own 4 on top.
 *
 * libuv sizes its pool once, at its first use, and loading DuckDB's addon is one: main.ts sets the size before it
 * imports anything that loads DuckDB (this module imports nothing). A pool left at 4 had two idle cursors and a page
 * hold every thread, and a gzip response, whose zlib work runs on the same pool, waited for a cursor to idle out.
 */

/** libuv's default pool, kept for file and DNS work. */
export const LIBUV_DEFAULT_THREADS = 4;
/** libuv refuses more (MAX_THREADPOOL_SIZE in deps/uv/src/threadpool.c) and silently uses 1024. */
export const LIBUV_MAX_THREADS = 1024;

export interface ThreadPoolNeeds {
  readonly maxConcurrentQueries: number;
  /** MAX_PARKED_RESPONSES; default four per query slot (limits/query-gate.ts parkingPlaces). */
  readonly maxParkedResponses?: number | undefined;
  readonly cursorCacheSize: number;
}

/**
 * @example
 * threadPoolSize({ maxConcurrentQueries: 8, cursorCacheSize: 4 }) // → 48
 */
export function threadPoolSize(needs: ThreadPoolNeeds): number {
  // query-gate.ts's parkingPlaces, restated: this module imports nothing (main.ts loads it before anything else).
  const parked = needs.maxParkedResponses ?? 4 * needs.maxConcurrentQueries;
  return Math.min(LIBUV_MAX_THREADS, needs.maxConcurrentQueries + parked + needs.cursorCacheSize + LIBUV_DEFAULT_THREADS);
}

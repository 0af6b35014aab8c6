/**
 * A page's text, written by DuckDB's own COPY writer into a named pipe and read here as bytes.
 *
 * Why: fetching a page's rows as DuckDB values and converting each one into a JavaScript string was slower and left a
 * string per row to the garbage collector (docs/performance.md, Alternatives measured and rejected). `COPY (SELECT
 * <row text>) TO '<pipe>'` with quoting switched off writes each row's text as it is, followed by `rowEnd`; this
 * process reads the pipe without blocking the event loop (a libuv pipe handle), and a full pipe blocks DuckDB's
 * writer: back-pressure from the socket all the way to the query.
 *
 * The pipe's read end stays open until the COPY has finished, whatever the consumer does: a writer that opens a
 * pipe with no reader would block forever, and one that writes into a full pipe nobody reads would too. A
 * consumer that stops early therefore interrupts the query and drains the pipe until DuckDB lets go.
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { closeSync, constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { literal, type CompiledQuery } from '../../query/sql.js';
import { paramTypes } from '../param-types.js';
import { PipeThread, type PipeThreadOptions } from './pipe-thread.js';
import { FRAME_DELIMITER, FRAME_END } from './row-frame.js';

/**
 * What follows each row: JSON rows are separated by commas (the last one is dropped by the writer), CSV lines end
 * in CRLF (formats.ts); a cursor's framed rows end in FRAME_END (db/extract/row-frame.ts).
 */
export type RowEnd = ',' | '\r\n' | typeof FRAME_END;

/** DuckDB's NEW_LINE option reads escapes: the row end as the option's text. */
const ROW_END_OPTION: Record<RowEnd, string> = { ',': ',', '\r\n': '\\r\\n', [FRAME_END]: '\\n' };

/** Paths come from our own pool (mkdtemp + counter); anything else never reaches the SQL text. */
function pipePath(path: string): string {
  if (!/^[A-Za-z0-9_./-]+$/.test(path)) throw new Error(`unexpected characters in the pipe path ${JSON.stringify(path)}: set TMPDIR to a plain path`);
  return path;
}

/** The COPY statement: the query's text columns, unquoted, separated by FRAME_DELIMITER, each row followed by `rowEnd`. */
export function copySql(q: CompiledQuery, pipe: string, rowEnd: RowEnd): string {
  // With QUOTE '' and ESCAPE '' DuckDB's CSV writer writes values verbatim. Pages select one column (no delimiter
  // is written); a cursor's frame puts the Id and the length before the text, so the text may hold anything.
  const options = `FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER ${literal(FRAME_DELIMITER)}, NEW_LINE ${literal(ROW_END_OPTION[rowEnd])}`;
  return `COPY (${q.sql}) TO ${literal(pipePath(pipe))} (${options})`;
}

/** What reads the pipe: a socket on the event loop, or a thread of its own (db/extract/pipe-thread.ts). */
export type PipeReader = Socket | PipeThread;

/** A COPY running into a named pipe, and what reads the pipe. */
export interface PipeCopy<R extends PipeReader = PipeReader> {
  readonly reader: R;
  /** The number of rows COPY reports having written; rejects with its error (SQL error, interrupt). */
  readonly done: Promise<number>;
  /** Interrupts the COPY if it still runs, discards what it still writes and resolves once DuckDB has let go. */
  stop(): Promise<void>;
}

/**
 * Starts `COPY (q) TO pipe` on `conn`, read by a non-blocking socket on the event loop (pages: short COPYs).
 * The read end is opened first and non-blocking (opening it cannot wait for a writer); then our own write end,
 * so that the reader sees end-of-file only once both we and DuckDB have closed theirs: never before DuckDB has
 * opened. A failed COPY writes nothing more: the reader ends at once with its error (DuckDB may not have closed
 * its end yet).
 */
export function startPipeCopy(conn: DuckDBConnection, q: CompiledQuery, pipe: string, rowEnd: RowEnd): PipeCopy<Socket> {
  return start(conn, copySql(q, pipe, rowEnd), q.params, pipe, (fd) => new Socket({ fd, readable: true, writable: false }));
}

/** The same, read by a thread of its own so the event loop never holds DuckDB's writer up (cursors). */
export function startThreadedPipeCopy(conn: DuckDBConnection, q: CompiledQuery, pipe: string, rowEnd: RowEnd, options?: PipeThreadOptions): PipeCopy<PipeThread> {
  return start(conn, copySql(q, pipe, rowEnd), q.params, pipe, (fd) => new PipeThread(fd, pipe, options));
}

/**
 * `COPY (q) TO pipe (options)` in any format DuckDB writes sequentially (Parquet, CSV, JSON), read by a thread of
 * its own: a whole-result export (db/extract/copy-export.ts). `options` are compiled by query/compile-export.ts.
 */
export function startThreadedFileCopy(conn: DuckDBConnection, q: CompiledQuery, options: string, pipe: string, thread?: PipeThreadOptions): PipeCopy<PipeThread> {
  return start(conn, `COPY (${q.sql}) TO ${literal(pipePath(pipe))} (${options})`, q.params, pipe, (fd) => new PipeThread(fd, pipe, thread));
}

function start<R extends PipeReader>(conn: DuckDBConnection, sql: string, params: CompiledQuery['params'], pipe: string, open: (fd: number) => R): PipeCopy<R> {
  const readEnd = openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK);
  let guard: number | undefined = openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK);
  const reader = open(readEnd);
  // Errors reach the consumer through `done` or its iterator; after it has gone, a late one has nobody left to tell.
  reader.on('error', () => {});
  const closeGuard = () => {
    if (guard === undefined) return;
    closeSync(guard);
    guard = undefined;
  };
  const done = conn
    .run(sql, params as DuckDBValue[], paramTypes(params))
    .then((result) => result.rowsChanged)
    .finally(closeGuard);
  done.catch((err: unknown) => reader.destroy(err instanceof Error ? err : new Error(String(err))));
  let settled = false;
  void done.then(
    () => (settled = true),
    () => (settled = true),
  );
  return {
    reader,
    done,
    async stop() {
      if (!settled) conn.interrupt();
      const release = discard(reader);
      await done.catch(() => undefined);
      closeGuard();
      await release();
    },
  };
}

/**
 * Makes `reader` drop whatever DuckDB still writes (a writer blocked on a full pipe would never finish); the
 * returned function lets go of the reader once DuckDB has closed its end.
 */
function discard(reader: PipeReader): () => Promise<void> {
  if (reader instanceof PipeThread) {
    reader.discard();
    return () => reader.finished;
  }
  reader.removeAllListeners('data');
  reader.resume(); // flowing with no listener
  return async () => {
    reader.destroy();
  };
}

/**
 * Yields the bytes DuckDB writes, as they arrive; returns the number of rows COPY reports having written.
 * A failed COPY (SQL error, interrupt) throws its error, possibly before bytes still in the pipe: a failed page is
 * cut, never completed.
 *
 * The pipe is read to its end whether or not the consumer keeps up: a page's COPY has rendered (and sorted) the
 * whole page before its first byte, so what it still writes is already in memory, and a writer left blocked on a
 * full pipe costs more than those bytes. On the snapshot's instance DuckDB's scheduler threads share a query's
 * tasks: when one of them holds the COPY's sink blocked in write(), the thread that runs the query (a libuv
 * worker) polls the task queue for as long as the client does not read, a core spinning for nothing
 * (docs/performance.md, A stalled reader). Read to the end, the COPY finishes, and its connection and thread are
 * free however slowly the page then travels. The page's size is bounded before it starts (MAX_PAGE_BYTES).
 */
export async function* copyThroughPipe(conn: DuckDBConnection, q: CompiledQuery, pipe: string, rowEnd: RowEnd): AsyncGenerator<Uint8Array, number> {
  const copy = startPipeCopy(conn, q, pipe, rowEnd);
  const read = drain(copy.reader);
  let rows: number | undefined;
  try {
    for (let chunk = await read.next(); chunk; chunk = await read.next()) yield chunk;
    rows = await copy.done;
    return rows;
  } finally {
    read.stop();
    if (rows === undefined) await copy.stop();
    else copy.reader.destroy();
  }
}

/** Reads `socket` to its end into a queue; `next` resolves the next chunk, or undefined at the end. */
function drain(socket: Socket): { next(): Promise<Buffer | undefined>; stop(): void } {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer) => (queue.push(chunk), wake?.());
  const onEnd = () => ((ended = true), wake?.());
  const onError = (err: Error) => ((failure ??= err), wake?.());
  socket.on('data', onData).on('end', onEnd).on('error', onError);
  return {
    async next() {
      for (;;) {
        if (failure) throw failure;
        const chunk = queue.shift();
        if (chunk || ended) return chunk;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
    stop() {
      queue.length = 0;
      socket.off('data', onData).off('end', onEnd).off('error', onError);
    },
  };
}

/**
 * A page's text, written by DuckDB's own COPY writer into a named pipe and read here as bytes.
 *
 * Why: fetching a page's rows as DuckDB values and converting each one into a JavaScript string cost ~40% of a
 * 10,000-row page and left the strings to the garbage collector (docs/performance.md). `COPY (SELECT <row
 * text>) TO '<pipe>'` with quoting switched off writes each row's text as it is, followed by `rowEnd`; this
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
import type { CompiledQuery } from '../query/sql.js';

/** What follows each row: JSON rows are separated by commas (the last one is dropped by the writer), CSV lines end in CRLF. */
export type RowEnd = ',' | '\r\n';

const ROW_END_SQL: Record<RowEnd, string> = { ',': "','", '\r\n': "'\\r\\n'" };

/** Paths come from our own pool (mkdtemp + counter); anything else never reaches the SQL text. */
function pipeLiteral(path: string): string {
  if (!/^[A-Za-z0-9_./-]+$/.test(path)) throw new Error(`unexpected characters in the pipe path ${JSON.stringify(path)}: set TMPDIR to a plain path`);
  return `'${path}'`;
}

/** The COPY statement: the query's single text column, unquoted, one row per `rowEnd`. */
export function copySql(q: CompiledQuery, pipe: string, rowEnd: RowEnd): string {
  // With QUOTE '' and ESCAPE '' DuckDB's CSV writer writes values verbatim; the delimiter never appears (one column).
  return `COPY (${q.sql}) TO ${pipeLiteral(pipe)} (FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\\x01', NEW_LINE ${ROW_END_SQL[rowEnd]})`;
}

/**
 * Yields the bytes DuckDB writes, as they arrive; returns the number of rows COPY reports having written.
 * A failed COPY (SQL error, interrupt) throws its error, possibly before bytes still in the pipe: a failed page is
 * cut, never completed.
 */
export async function* copyThroughPipe(conn: DuckDBConnection, q: CompiledQuery, pipe: string, rowEnd: RowEnd): AsyncGenerator<Uint8Array, number> {
  // Read end first and non-blocking (opening it cannot wait for a writer); then our own write end, so that the
  // reader sees end-of-file only once both we and DuckDB have closed theirs: never before DuckDB has opened.
  const reader = new Socket({ fd: openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
  // Errors reach the consumer through the iterator; after it has returned, a late one has nobody left to tell.
  reader.on('error', () => {});
  let guard: number | undefined = openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK);
  const closeGuard = () => {
    if (guard === undefined) return;
    closeSync(guard);
    guard = undefined;
  };
  const copy = conn.run(copySql(q, pipe, rowEnd), q.params as DuckDBValue[]).finally(closeGuard);
  // A failed COPY writes nothing more: end the read at once with its error (DuckDB may not have closed its end yet).
  copy.catch((err: unknown) => reader.destroy(err instanceof Error ? err : new Error(String(err))));
  let complete = false;
  try {
    for await (const chunk of reader.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
    const result = await copy;
    complete = true;
    return result.rowsChanged;
  } finally {
    if (!complete) {
      conn.interrupt();
      reader.resume(); // flowing with no listener: discards whatever DuckDB still writes
      await copy.catch(() => undefined);
    }
    closeGuard();
    reader.destroy();
  }
}

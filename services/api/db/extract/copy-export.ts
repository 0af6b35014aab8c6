/**
 * A whole-result export: DuckDB's own COPY writer (Parquet, CSV or NDJSON) writing into a named pipe, read on a
 * thread of its own (pipe-thread.ts) and handed to the socket chunk by chunk.
 *
 * Why COPY: DuckDB writes Parquet and text at its own speed (the reference `make bench` compares against), and
 * every byte is produced in DuckDB's threads, not converted value by value here. The Parquet writer writes its
 * file front to back (footer last), so a pipe serves as well as a file: the bytes are those of `COPY … TO file`.
 *
 * Back-pressure: at most READ_AHEAD bytes wait here; beyond that the thread stops reading, the pipe fills and
 * DuckDB's writer blocks until the socket has taken more. Memory stays flat whatever the size.
 * A consumer that stops (client gone, deadline) interrupts the COPY and drains the pipe until DuckDB lets go; a
 * COPY that fails throws its error to the consumer, which must cut the response (never end it as if complete).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CompiledQuery } from '../../query/sql.js';
import { startThreadedFileCopy } from './copy-text.js';

/** Bytes read from the pipe and not yet taken by the consumer before the thread pauses. */
export const EXPORT_READ_AHEAD = 4 * 1024 * 1024;

/** Yields what COPY writes; returns the number of rows it reports. Throws the COPY's error, if any. */
export async function* copyExport(conn: DuckDBConnection, q: CompiledQuery, options: string, pipe: string): AsyncGenerator<Uint8Array, number> {
  const copy = startThreadedFileCopy(conn, q, options, pipe, { inFlight: EXPORT_READ_AHEAD });
  const reader = copy.reader;
  const queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  reader.on('data', (read: Buffer) => {
    queue.push(read);
    queued += read.length;
    if (queued >= EXPORT_READ_AHEAD) reader.pause();
    wake?.();
  });
  reader.on('end', () => {
    ended = true;
    wake?.();
  });
  reader.on('error', (err: Error) => {
    failure ??= err;
    wake?.();
  });

  let rows: number | undefined;
  try {
    for (;;) {
      if (failure) throw failure;
      const next = queue.shift();
      if (next) {
        queued -= next.length;
        if (queued < EXPORT_READ_AHEAD && reader.isPaused()) reader.resume();
        yield next;
        continue;
      }
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    rows = await copy.done;
    return rows;
  } finally {
    if (rows === undefined) await copy.stop();
    await reader.finished;
  }
}

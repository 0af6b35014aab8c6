/**
 * A whole-result export: DuckDB's own COPY writer (Parquet, CSV or NDJSON) writing into a named pipe, read on a
 * thread of its own (pipe-thread.ts) and handed to the socket chunk by chunk.
 *
 * Why COPY: DuckDB writes Parquet and text at its own speed (the reference `make bench` compares against), and
 * every byte is produced in DuckDB's threads, not converted value by value here. The Parquet writer writes its
 * file front to back (footer last), so a pipe serves as well as a file: the bytes are those of `COPY … TO file`.
 *
 * Back-pressure: at most READ_AHEAD bytes wait here; beyond that the thread stops reading, the pipe fills and
 * DuckDB's writer blocks until the socket has taken more. The COPY runs on an instance of its own with one thread
 * (`createExportInstance`), as cursors do: with every thread, DuckDB renders ahead of a blocked writer and keeps
 * what it rendered in order in memory, so the API's RSS grows with the export (docs/performance.md, §1e). At one
 * thread memory stays flat whatever the size.
 * A consumer that stops (client gone, deadline) interrupts the COPY and drains the pipe until DuckDB lets go; a
 * COPY that fails throws its error to the consumer, which must cut the response (never end it as if complete).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
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

/**
 * The export instance's memory limit. Without one its buffer pool keeps every block a whole-hub export reads, so
 * the API's RSS grows with the hub. At 256MB the Parquet writer keeps its unlimited speed and the API's RSS stays
 * bounded over 100M rows of every format (docs/bench/formats-100m.md); a smaller pool makes the Parquet writer spill and
 * slow down, or fail (docs/performance.md, Alternatives measured and rejected).
 */
export const EXPORT_MEMORY_LIMIT = '256MB';

/** The single-threaded DuckDB instance exports run on, over the snapshot's file: created on the first export. */
export interface ExportInstance {
  /** A connection of its own for one export; throws once the instance is closing. */
  connect(): Promise<DuckDBConnection>;
  /** The export on `conn` is over (finished, failed or abandoned): its connection is closed. */
  done(conn: DuckDBConnection): void;
  /** Exports running now. */
  readonly running: number;
  /** Interrupts the running exports, waits until each has let go, then closes the instance. */
  close(): Promise<void>;
}

export function createExportInstance(path: string, config: Readonly<Record<string, string>>): ExportInstance {
  let instance: Promise<DuckDBInstance> | undefined;
  const open = new Set<DuckDBConnection>();
  let closing = false;
  let idle: (() => void) | undefined;
  return {
    get running() {
      return open.size;
    },
    async connect() {
      if (closing) throw new Error(`${path} is closed`);
      const creating = (instance ??= DuckDBInstance.create(path, { ...config, threads: '1', memory_limit: EXPORT_MEMORY_LIMIT }));
      creating.catch(() => {
        if (instance === creating) instance = undefined;
      });
      const conn = await (await creating).connect();
      open.add(conn);
      return conn;
    },
    done(conn) {
      if (!open.delete(conn)) return;
      conn.interrupt();
      conn.closeSync();
      if (open.size === 0) idle?.();
    },
    async close() {
      closing = true;
      if (open.size > 0) {
        const drained = new Promise<void>((resolve) => (idle = resolve));
        for (const conn of open) conn.interrupt();
        await drained;
      }
      if (instance) (await instance.catch(() => undefined))?.closeSync();
    },
  };
}

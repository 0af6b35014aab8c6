/**
 * Running queries on one DuckDB instance. Each query gets its own connection so that an abort can interrupt
 * exactly that query (`connection.interrupt()`), and so that a slow query never blocks another.
 */
import { DuckDBConnection, JSDuckDBValueConverter, type DuckDBDataChunk, type DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import type { Key } from '../query/plan.js';
import type { CompiledQuery } from '../query/sql.js';
import type { Extract, RowEnd } from './extract/extract.js';

/** A chunk of typed columns: `columns[i][row]`. */
export interface ColumnChunk {
  readonly ids: readonly Key[];
  readonly columns: readonly (readonly unknown[])[];
}

export type Columns = Record<string, DuckDBValue[]>;

export interface QueryRunner {
  /** Runs a query with a small result (Ids, counts) and returns its columns by name. */
  columns(q: CompiledQuery, signal?: AbortSignal): Promise<Columns>;
  /**
   * Streams the text of a one-column query (`row`: a JSON object or CSV line per row), each row followed by
   * `rowEnd`, as DuckDB's COPY writes it (db/extract/copy-text.ts); returns the number of rows written. The query is
   * interrupted when the consumer stops or aborts.
   */
  copyText(q: CompiledQuery, rowEnd: RowEnd, signal?: AbortSignal): AsyncGenerator<Uint8Array, number>;
  /** A whole result written by DuckDB's COPY with `options` (db/extract/copy-export.ts); returns the row count. */
  copyExport(q: CompiledQuery, options: string, signal?: AbortSignal): AsyncGenerator<Uint8Array, number>;
  /** Streams `id, c0, c1, …` as JS values (Dates, bigints, arrays) per column, for typed writers (Arrow). */
  streamColumns(q: CompiledQuery, signal?: AbortSignal): AsyncGenerator<ColumnChunk>;
  /** Queries running now (for tests and /readyz). */
  readonly running: number;
}

export function createQueryRunner(instance: DuckDBInstance, extract: Pick<Extract, 'copyText' | 'copyExport'>): QueryRunner {
  let running = 0;

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

  return {
    get running() {
      return running;
    },
    async columns(q, signal) {
      const { conn, done } = await acquireConnection(signal);
      try {
        return (await conn.runAndReadAll(q.sql, q.params as DuckDBValue[])).getColumnsObject();
      } finally {
        done();
      }
    },
    async *copyText(q, rowEnd, signal) {
      const { conn, done } = await acquireConnection(signal);
      try {
        return yield* extract.copyText(conn, q, rowEnd);
      } finally {
        done();
      }
    },
    async *copyExport(q, options, signal) {
      const { conn, done } = await acquireConnection(signal);
      try {
        return yield* extract.copyExport(conn, q, options);
      } finally {
        done();
      }
    },
    streamColumns(q, signal) {
      return chunks(q, signal, (chunk) => {
        const columns = Array.from({ length: chunk.columnCount }, (_, i) => chunk.convertColumnValues(i, JSDuckDBValueConverter));
        return { ids: columns[0] as Key[], columns: columns.slice(1) };
      });
    },
  };
}

/**
 * Running queries on one DuckDB instance. Each query gets its own connection so that an abort can interrupt
 * exactly that query (`connection.interrupt()`), and so that a slow query never blocks another.
 */
import { DuckDBConnection, type DuckDBDataChunk, type DuckDBInstance, type DuckDBTypeId, type DuckDBValue } from '@duckdb/node-api';
import { TEXT_BYTES_COLUMN } from '../query/render-row.js';
import { chunkColumns, type ChunkColumn } from './chunk-columns.js';
import { paramTypes } from './param-types.js';
import type { Key } from '../query/plan.js';
import type { CompiledQuery } from '../query/sql.js';
import type { Extract, RowEnd } from './extract/extract.js';

export type { ChunkColumn } from './chunk-columns.js';

/** A chunk of typed columns in Arrow's layout (db/chunk-columns.ts), and the rows' Ids. */
export interface ColumnChunk {
  readonly ids: readonly Key[];
  readonly columns: readonly ChunkColumn[];
}

export type Columns = Record<string, DuckDBValue[]>;

/** A streamed result's column types, and which column holds the rows' text bytes (query/render-row.ts), if one does. */
interface ResultShape {
  readonly types: readonly DuckDBTypeId[];
  readonly textBytes: number | undefined;
}

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
  /** Streams `id, c0, c1, …` per column in Arrow's layout (db/chunk-columns.ts), for typed writers (Arrow). */
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
    if (signal?.aborted) {
      conn.closeSync();
      signal.throwIfAborted();
    }
    // DuckDB forgets an interrupt that lands before the query has started (on a loaded machine the query may start
    // after the deadline fired): interrupt again until the query is done.
    let again: NodeJS.Timeout | undefined;
    const onAbort = () => {
      conn.interrupt();
      again ??= setInterval(() => conn.interrupt(), 50);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    running++;
    return {
      conn,
      done() {
        running--;
        clearInterval(again);
        signal?.removeEventListener('abort', onAbort);
        // Interrupting first stops DuckDB from computing rows nobody will read (a consumer that left early).
        conn.interrupt();
        conn.closeSync();
      },
    };
  }

  /** Streams a query chunk by chunk; `done` runs on completion, on error and when the consumer returns early. */
  async function* chunks<T>(q: CompiledQuery, signal: AbortSignal | undefined, convert: (chunk: DuckDBDataChunk, result: ResultShape) => T): AsyncGenerator<T> {
    const { conn, done } = await acquireConnection(signal);
    try {
      const result = await conn.stream(q.sql, q.params as DuckDBValue[], paramTypes(q.params));
      const names = result.columnNames();
      const textBytes = names.indexOf(TEXT_BYTES_COLUMN);
      const shape: ResultShape = { types: names.map((_, i) => result.columnTypeId(i)), textBytes: textBytes < 0 ? undefined : textBytes };
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        yield convert(chunk, shape);
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
        return (await conn.runAndReadAll(q.sql, q.params as DuckDBValue[], paramTypes(q.params))).getColumnsObject();
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
      // On the extract's single-threaded export instance (db/extract/copy-export.ts), counted here with the rest.
      running++;
      try {
        return yield* extract.copyExport(q, options, signal);
      } finally {
        running--;
      }
    },
    streamColumns(q, signal) {
      return chunks(q, signal, (chunk, { types, textBytes }) => {
        const columns = chunkColumns(chunk, types, textBytes);
        return { ids: keys(columns[0]!), columns: columns.slice(1) };
      });
    },
  };
}

const utf8 = new TextDecoder();

/** The Id column as keys: BIGINT Ids as bigints, text keys as strings. */
function keys(col: ChunkColumn): Key[] {
  if (col.kind === 'fixed' && col.type === 'BIGINT') return Array.from(col.values);
  if (col.kind === 'utf8') return Array.from({ length: col.length }, (_, i) => utf8.decode(col.data.subarray(col.valueOffsets[i], col.valueOffsets[i + 1])));
  if (col.kind === 'values') return col.values as Key[];
  throw new Error(`an Id column of ${col.type} values is not a key this runner reads`);
}

/** A read-only, in-process DuckDB connection on the benchmark's file (for discovery, references and diagnoses). */
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';

export interface Duck {
  all(sql: string, params?: readonly DuckDBValue[]): Promise<Record<string, DuckDBValue>[]>;
  /** Runs a query and pulls every chunk, returning wall time and rows (nothing kept). */
  drain(sql: string, params?: readonly DuckDBValue[]): Promise<{ ms: number; rows: number }>;
  close(): void;
}

export async function openDuck(path: string): Promise<Duck> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  return {
    async all(sql, params = []) {
      const reader = await conn.runAndReadAll(sql, params as DuckDBValue[]);
      return reader.getRowObjects();
    },
    async drain(sql, params = []) {
      const started = performance.now();
      const result = await conn.stream(sql, params as DuckDBValue[]);
      let rows = 0;
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        rows += chunk.rowCount;
      }
      return { ms: performance.now() - started, rows };
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

export const num = (v: DuckDBValue): number => Number(v as number | bigint);

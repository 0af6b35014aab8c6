/**
 * A read-only DuckDB connection on the benchmark's file (for discovery, references and diagnoses), run in a child
 * process (duck-child.ts) whose answers carry the time measured there.
 *
 * A measuring client that shares a process with `@duckdb/node-api` (or any old generation of more than a few MB, client.ts)
 * measures its own garbage collector, so the clients run in a lean process of their own and DuckDB in this one, where
 * its figures are timed without IPC.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { forkChild } from './child-rpc.js';

export interface Duck {
  all(sql: string, params?: readonly DuckDBValue[]): Promise<Record<string, DuckDBValue>[]>;
  /** `all`, with its wall time measured in DuckDB's process. */
  timed(sql: string, params?: readonly DuckDBValue[]): Promise<{ ms: number; rows: Record<string, DuckDBValue>[] }>;
  /** Runs a query and pulls every chunk, returning wall time and rows (nothing kept). */
  drain(sql: string, params?: readonly DuckDBValue[]): Promise<{ ms: number; rows: number }>;
  close(): void;
}

/** What duck-child.ts answers: the wall time in its process, and the rows (`all`) or how many there were (`drain`). */
export interface DuckAnswer {
  readonly ms: number;
  readonly rows?: Record<string, DuckDBValue>[];
  readonly count?: number;
}

export type DuckRequest = { readonly op: 'all' | 'drain'; readonly sql: string; readonly params: readonly DuckDBValue[] };

export async function openDuck(path: string): Promise<Duck> {
  const child = await forkChild<DuckRequest>(new URL('./duck-child.ts', import.meta.url), [path], [], 'DuckDB');
  const ask = (op: 'all' | 'drain', sql: string, params: readonly DuckDBValue[] = []) => child.ask<DuckAnswer>({ op, sql, params });
  return {
    all: async (sql, params) => (await ask('all', sql, params)).rows!,
    timed: async (sql, params) => {
      const { ms, rows } = await ask('all', sql, params);
      return { ms, rows: rows! };
    },
    drain: async (sql, params) => {
      const a = await ask('drain', sql, params);
      return { ms: a.ms, rows: a.count! };
    },
    close: child.close,
  };
}

export const num = (v: DuckDBValue): number => Number(v as number | bigint);

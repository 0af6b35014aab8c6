/**
 * A read-only DuckDB connection on the benchmark's file (for discovery, references and diagnoses), run in a child
 * process (duck-child.ts).
 *
 * Why not in-process: a Node process that has loaded @duckdb/node-api runs V8's full mark-compact far more often
 * while it moves Buffers (measured: 518 mark-compacts against 10 over the same 300 pages of HTTP bodies, started by
 * "allocation limit" with 10 MB of heap in use; the cause inside the library was not found). The bench's HTTP and
 * PostgreSQL clients ran in that process: the extract read ~110k rows/s where the same client in a process without
 * DuckDB read 145–178k from the same API. The measured clients now never share a process with DuckDB (main.ts
 * checks /proc/self/maps before measuring).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { DuckDBValue } from '@duckdb/node-api';

export interface Duck {
  all(sql: string, params?: readonly DuckDBValue[]): Promise<Record<string, DuckDBValue>[]>;
  /** `all`, with its wall time measured in DuckDB's process. */
  timed(sql: string, params?: readonly DuckDBValue[]): Promise<{ ms: number; rows: Record<string, DuckDBValue>[] }>;
  /** Runs a query and pulls every chunk, returning wall time and rows (nothing kept). */
  drain(sql: string, params?: readonly DuckDBValue[]): Promise<{ ms: number; rows: number }>;
  close(): void;
}

interface Answer {
  readonly id: number;
  readonly ms: number;
  readonly rows?: Record<string, DuckDBValue>[];
  readonly count: number;
  readonly error?: string;
}

export async function openDuck(path: string): Promise<Duck> {
  const child: ChildProcess = fork(new URL('./duck-child.ts', import.meta.url).pathname, [path], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced', // bigints and nested values as they are
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  let next = 0;
  let gone: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (m: Answer | { ready: true }) => {
      if ('ready' in m) return resolve();
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m);
    });
    child.once('exit', (code) => {
      gone = new Error(`the bench's DuckDB process exited with ${code}`);
      reject(gone);
      for (const w of waiting.values()) w.reject(gone);
      waiting.clear();
    });
  });
  await ready;
  const ask = (op: 'all' | 'drain', sql: string, params: readonly DuckDBValue[] = []) =>
    new Promise<Answer>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.send({ id, op, sql, params });
    });
  return {
    all: async (sql, params) => (await ask('all', sql, params)).rows!,
    timed: async (sql, params) => {
      const { ms, rows } = await ask('all', sql, params);
      return { ms, rows: rows! };
    },
    drain: async (sql, params) => {
      const a = await ask('drain', sql, params);
      return { ms: a.ms, rows: a.count };
    },
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

/** Throws when this process has DuckDB's library mapped: its measured clients must run without it (see above). */
export function assertNoDuckDbHere(): void {
  if (readFileSync('/proc/self/maps', 'utf8').includes('libduckdb')) {
    throw new Error('libduckdb is loaded in the bench process: something imported @duckdb/node-api at run time. Keep DuckDB in duck-child.ts (scripts/bench/duck.ts says why).');
  }
}

export const num = (v: DuckDBValue): number => Number(v as number | bigint);

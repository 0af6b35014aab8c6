/**
 * A read-only DuckDB connection on the benchmark's file (for discovery, references and diagnoses), run in a child
 * process (duck-child.ts) whose answers carry the time measured there.
 *
 * It was moved out of the bench's process when a client sharing a process with `@duckdb/node-api` measured the API
 * ~30% slower. The cause turned out to be any old generation above ~8 MB, not DuckDB (client.ts): the measuring
 * clients now run in a lean process of their own, and DuckDB stays here, where its figures are timed without IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
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

export const num = (v: DuckDBValue): number => Number(v as number | bigint);

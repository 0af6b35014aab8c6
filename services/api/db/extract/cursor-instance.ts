/**
 * The second DuckDB instance that cursors run on (db/extract/cursor.ts): single-threaded, over the same file. A COPY
 * that uses every thread renders row groups ahead of a slow reader and holds them in memory (docs/performance.md,
 * Alternatives measured and rejected); one thread renders only as fast as the socket takes it. Created on the first
 * cursor, closed with the snapshot once every cursor has let go.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { literal, type CompiledQuery } from '../../query/sql.js';
import { startThreadedPipeCopy } from './copy-text.js';
import { openCursor, type Cursor } from './cursor.js';
import type { PipePool } from './pipe-pool.js';
import { FRAME_END, framedRows } from './row-frame.js';

/**
 * The cursor instance's memory limit, in MB, for `open` cursors. Its buffer pool otherwise keeps every block a full
 * scan reads. A COPY allocates 16 MiB: 64MB leaves one cursor twice that. Each further cursor's COPY holds as much
 * again, so a fixed 64MB ran out of memory with three cursors open (their pages were finished from their windows,
 * more slowly): the limit follows the number open, 32MB each beyond the first (docs/performance.md, Alternatives
 * measured and rejected).
 */
export function cursorMemoryLimitMB(open: number): number {
  return 64 + 32 * Math.max(0, open - 1);
}

export interface CursorInstanceOptions {
  /** DuckDB settings of the snapshot's own instance (access mode, memory limit); threads become 1. */
  readonly config: Readonly<Record<string, string>>;
  /** A fixed memory limit (tests: one too small for a COPY); otherwise it follows cursorMemoryLimitMB. */
  readonly memoryLimit?: string;
}

export interface CursorInstance {
  /** Opens a cursor on a query of `id` and `row` (compileCursorRows), framed here, on a connection and a pipe of its own. */
  open(q: CompiledQuery): Promise<Cursor>;
  /** Cursors whose COPY has not yet been closed. */
  readonly opened: number;
  /**
   * Takes no more cursors from now, runs `closeCursors` (the cache's cursors), then closes the instance once
   * their COPYs have let go and the last memory resize has run: a connection opened on an instance being closed
   * crashes the process.
   */
  close(closeCursors: () => Promise<void>): Promise<void>;
  /** The instance's memory limit as DuckDB reports it (for tests); undefined before the first cursor. */
  memoryLimit(): Promise<string | undefined>;
}

export function createCursorInstance(path: string, pipes: PipePool, opts: CursorInstanceOptions): CursorInstance {
  let instance: Promise<DuckDBInstance> | undefined;
  let opened = 0;
  let closed = false;
  /**
   * Sets the limit for the cursors open when it runs. Chained, so that the last one to run sees the last count,
   * and so that close() can wait for it. Best effort: a failure leaves the previous limit.
   */
  let resizing = Promise.resolve();
  const resize = (inst: DuckDBInstance) =>
    (resizing = resizing
      .then(async () => {
        if (closed) return;
        const conn = await inst.connect();
        try {
          await conn.run(`SET memory_limit = ${literal(`${cursorMemoryLimitMB(opened)}MB`)}`);
        } finally {
          conn.closeSync();
        }
      })
      .catch(() => undefined));
  const fixed = opts.memoryLimit;

  return {
    get opened() {
      return opened;
    },
    async open(q) {
      if (closed) throw new Error(`${path} is closed`);
      const creating = (instance ??= DuckDBInstance.create(path, { ...opts.config, threads: '1', memory_limit: fixed ?? `${cursorMemoryLimitMB(1)}MB` }));
      // A failed creation is not remembered: the next cursor tries again (the failure may have been passing).
      creating.catch(() => {
        if (instance === creating) instance = undefined;
      });
      const inst = await creating;
      const conn = await inst.connect();
      let pipe: string;
      try {
        pipe = await pipes.acquire();
      } catch (err) {
        conn.closeSync();
        throw err;
      }
      opened++;
      if (!fixed) await resize(inst);
      return openCursor(startThreadedPipeCopy(conn, framedRows(q), pipe, FRAME_END), () => {
        opened--;
        conn.closeSync();
        pipes.release(pipe);
        if (!fixed) void resize(inst);
      });
    },
    close(closeCursors) {
      closed = true;
      return closeCursors()
        .then(() => resizing)
        .then(async () => (await instance)?.closeSync())
        .catch(() => undefined);
    },
    async memoryLimit() {
      if (!instance || closed) return undefined;
      const conn = await (await instance).connect();
      try {
        const r = await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`);
        return String(r.getColumnsObject()['m']?.[0]);
      } finally {
        conn.closeSync();
      }
    },
  };
}

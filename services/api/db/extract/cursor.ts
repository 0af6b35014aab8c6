/**
 * A cursor: one query's rows after a position, read page by page by successive requests of a client that follows
 * next links (db/extract/cursor-cache.ts keeps it between them). One COPY writes every remaining row, framed
 * (db/extract/row-frame.ts), into a pipe; while no request is reading, the cursor reads ahead up to `readAhead` bytes, so
 * that DuckDB renders the next page while the client is still taking in the last one and asking for the next
 * (without it DuckDB idles while a page travels: docs/performance.md, Alternatives measured and rejected). Beyond
 * that the pipe fills and blocks DuckDB's writer.
 */
import type { Key } from '../../query/plan.js';
import type { PipeCopy } from './copy-text.js';
import { PipeThread } from './pipe-thread.js';
import { RowFrames } from './row-frame.js';

/**
 * Half a 10,000-row page of Records in JSON; the pipe's thread (db/extract/pipe-thread.ts) may hold up to as much again
 * in messages the event loop has not taken yet.
 */
export const READ_AHEAD = 8 * 1024 * 1024;
/** Bytes per write to the response, as for pages (stream/page-stream.ts). */
const BATCH = 256 * 1024;

/** A cursor page that failed after `rows` whole rows had been handed out (not raised for an abort). */
export class CursorError extends Error {
  constructor(
    readonly rows: number,
    cause: unknown,
  ) {
    super(`cursor failed after ${rows} rows: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export interface Cursor {
  /**
   * The next `ids.length` rows, each followed by `rowEnd`, as batches of bytes; returns the number of rows. Each
   * row's Id must be the one phase one found at its place, or the page fails. A consumer that stops early, an
   * abort and any failure close the cursor: a page is taken whole or the cursor is gone. A failure other than the
   * abort throws a CursorError that says how many rows were handed out, so the caller can finish the page
   * another way.
   */
  page(ids: readonly Key[], rowEnd: Uint8Array, signal?: AbortSignal): AsyncGenerator<Uint8Array, number>;
  /** Stops the COPY (if it still runs) and gives its connection and pipe back; idempotent. */
  close(): Promise<void>;
  readonly closed: boolean;
}

/** `copy` writes framed rows; `onClosed` runs once it has let go (to give back the connection and the pipe). */
export function openCursor(copy: PipeCopy, onClosed: () => void, readAhead = READ_AHEAD): Cursor {
  const reader = copy.reader;
  const frames = new RowFrames(reader instanceof PipeThread ? (read) => reader.recycle(read) : undefined);
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  let reading = false;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  reader.on('data', (read: Buffer) => {
    frames.push(read);
    if (frames.bytes >= readAhead) reader.pause();
    notify();
  });
  reader.on('end', () => {
    ended = true;
    notify();
  });
  reader.on('error', (err: Error) => {
    failure = err;
    notify();
  });

  const close = () =>
    (closing ??= copy.stop().finally(() => {
      frames.clear();
      onClosed();
    }));

  async function* page(ids: readonly Key[], rowEnd: Uint8Array, signal?: AbortSignal): AsyncGenerator<Uint8Array, number> {
    if (closing) throw new Error('cursor is closed');
    if (reading) throw new Error('cursor is already being read');
    reading = true;
    const onAbort = () => notify();
    signal?.addEventListener('abort', onAbort);
    let rows = 0;
    let complete = false;
    try {
      const check = (id: number, i: number) => {
        const want = ids[rows + i];
        if (Number(want) !== id) throw new Error(`cursor row ${rows + i} has Id ${id} where phase one found ${String(want)}`);
      };
      while (rows < ids.length) {
        signal?.throwIfAborted();
        const taken = frames.take(ids.length - rows, rowEnd, BATCH, check);
        if (frames.bytes < readAhead && reader.isPaused()) reader.resume();
        if (taken.rows > 0) {
          rows += taken.rows;
          yield taken.data;
          continue;
        }
        if (failure) throw failure;
        if (ended) throw new Error(`cursor ended after ${rows} of ${ids.length} rows`);
        // Read-ahead is full and holds no whole row: waiting would wait forever.
        if (frames.bytes >= readAhead) throw new Error(`cursor frame broken: no whole row in ${frames.bytes} bytes`);
        await new Promise<void>((resolve) => (wake = resolve));
      }
      complete = true;
      return rows;
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new CursorError(rows, err);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      reading = false;
      if (!complete) await close();
    }
  }

  return {
    page,
    close,
    get closed() {
      return closing !== undefined;
    },
  };
}

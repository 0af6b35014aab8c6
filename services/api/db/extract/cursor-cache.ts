/**
 * Cursors between the requests of a client that follows next links: each kept under the key of the page it
 * continues with (the cursor query's SQL and parameters, the position included), for at most `idleMs`, at most
 * `max` of them (the least recently stored goes first). A request takes its cursor out while it reads a page and
 * puts it back under the next page's key.
 *
 * A cursor is only worth opening for a client that pages on: the cache also remembers the next links it handed
 * out (`issue`), and a cursor is opened when such a link comes back (`followed`), never for a single page.
 */
import type { Cursor } from './cursor.js';

export interface CursorCacheOptions {
  /** Cursors kept at once (CURSOR_CACHE_SIZE). */
  readonly max: number;
  /** How long a cursor waits for its next request (CURSOR_IDLE_MS). */
  readonly idleMs: number;
  /** The time idleness is measured in: the system's, or a test's own, so no test depends on how fast it runs. */
  readonly clock?: IdleClock;
}

export interface IdleClock {
  now(): number;
  /** Runs `fn` once `ms` have passed, unless cancelled first; never keeps the process alive. */
  after(ms: number, fn: () => void): { cancel(): void };
}

export const SYSTEM_CLOCK: IdleClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** Next links remembered at most: a key is a few hundred bytes. */
const ISSUED_MAX = 1024;

export class CursorCache {
  private readonly idle = new Map<string, { cursor: Cursor; timer: { cancel(): void } }>();
  /** Handed-out next links: key → until when a request for it counts as following. */
  private readonly issued = new Map<string, number>();
  private closed = false;
  private readonly clock: IdleClock;

  constructor(private readonly opts: CursorCacheOptions) {
    this.clock = opts.clock ?? SYSTEM_CLOCK;
  }

  /** The cursor stored under `key`, removed from the cache (the caller reads it, then puts it back or closes it). */
  take(key: string): Cursor | undefined {
    const entry = this.idle.get(key);
    if (!entry) return undefined;
    this.idle.delete(key);
    entry.timer.cancel();
    return entry.cursor;
  }

  put(key: string, cursor: Cursor): void {
    if (this.closed) {
      void cursor.close();
      return;
    }
    void this.take(key)?.close();
    while (this.idle.size >= this.opts.max) void this.take(this.idle.keys().next().value!)!.close();
    const timer = this.clock.after(this.opts.idleMs, () => {
      if (this.idle.get(key)?.cursor === cursor) void this.take(key)!.close();
    });
    this.idle.set(key, { cursor, timer });
  }

  /** Remembers a next link handed out by a page served without a cursor. */
  issue(key: string): void {
    this.issued.delete(key);
    this.issued.set(key, this.clock.now() + this.opts.idleMs);
    if (this.issued.size > ISSUED_MAX) this.issued.delete(this.issued.keys().next().value!);
  }

  /** Whether `key` is a next link handed out within `idleMs`: a client paging on. Forgets it either way. */
  followed(key: string): boolean {
    const until = this.issued.get(key);
    this.issued.delete(key);
    return until !== undefined && until >= this.clock.now();
  }

  /** Cursors waiting for their next request. */
  get size(): number {
    return this.idle.size;
  }

  /** Closes every waiting cursor; cursors put back later are closed at once. */
  async close(): Promise<void> {
    this.closed = true;
    const cursors = [...this.idle.keys()].map((key) => this.take(key)!);
    this.issued.clear();
    await Promise.all(cursors.map((c) => c.close()));
  }
}

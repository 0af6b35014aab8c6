/**
 * The alternative to extract cursors that the bench A/Bs (EXTRACT_PREFETCH=1; docs/performance.md): for a client
 * that follows next links, each page served starts the next page at once, phase one and its window's COPY into a
 * pipe on the snapshot's own instance, exactly as that page would run on its own. DuckDB renders the next page
 * while the client takes in this one; the COPY then waits on its full pipe until the request for it arrives, or
 * until it is evicted or idle for CURSOR_IDLE_MS (db/extract/cursor-cache.ts keeps it).
 *
 * Same rows as the per-page path by construction: the prefetched page is that path, started early, under a key
 * that holds everything its window depends on (the cursor query's SQL and values, and `$top`).
 */
import type { ExtractPrefetches } from '../db/extract/extract.js';
import type { Snapshot } from '../db/snapshot.js';
import { compileCursorRows } from '../query/compile.js';
import type { PagePlan } from '../query/plan.js';
import { windowText, type TextPageRequest } from './page-text.js';
import { findPage, type PageWindow } from './page-window.js';

type TextPlan = TextPageRequest['plan'];

export interface PrefetchedPage {
  /** Phase one of the page; undefined when it failed (the request then runs its own). */
  readonly window: Promise<PageWindow | undefined>;
  /** The first chunk of its COPY: settles once DuckDB has rendered the page and begun writing it. */
  readonly first: Promise<IteratorResult<Uint8Array, number>>;
  /** The rest of its COPY. */
  readonly rest: AsyncGenerator<Uint8Array, number>;
  /** Aborts the page's queries (a request that takes it and leaves). */
  abort(): void;
  close(): Promise<void>;
}

/** The cache key of the page `plan` asks for. */
export function prefetchKey(plan: TextPlan): string {
  const q = compileCursorRows(plan, plan.format);
  return JSON.stringify([q.sql, q.params, plan.top], (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** The prefetched page a request asks for, left in the cache (its rows take it: exec/page-text.ts `prefetchText`). */
export function peekPrefetched(prefetches: ExtractPrefetches, plan: TextPlan): PrefetchedPage | undefined {
  return prefetches.peek(prefetchKey(plan)) as PrefetchedPage | undefined;
}

export function takePrefetched(prefetches: ExtractPrefetches, plan: TextPlan): PrefetchedPage | undefined {
  return prefetches.take(prefetchKey(plan)) as PrefetchedPage | undefined;
}

/** Starts the page `plan` asks for: phase one, then its window's COPY, which runs until its pipe is full. */
export function prefetchPage(snapshot: Snapshot, plan: TextPlan, log: (msg: string) => void): PrefetchedPage {
  const ctl = new AbortController();
  const found = findPage(snapshot, plan, ctl.signal);
  const rest = (async function* () {
    const window = await found;
    const hasNext = window.ids.length > plan.top;
    const ids = hasNext ? window.ids.slice(0, plan.top) : window.ids;
    return yield* windowText({ snapshot, plan, window, ids, hasNext, signal: ctl.signal, log });
  })();
  const first = rest.next();
  first.catch(() => undefined);
  return {
    window: found.catch(() => undefined),
    first,
    rest,
    abort: () => ctl.abort(),
    async close() {
      ctl.abort();
      await first.catch(() => undefined);
      await rest.return(0);
    },
  };
}

/** Whether `plan`'s text pages may be prefetched on this snapshot. */
export function prefetching(plan: PagePlan, snapshot: Pick<Snapshot, 'prefetches'>): boolean {
  return snapshot.prefetches !== undefined && plan.resource.table === 'observations';
}

/**
 * A page's rows when prefetching replaces cursors: from the page prefetched for it when there is one, else from its
 * own window. A client paging on (a prefetched page taken, or a link handed out coming back) gets the next page
 * started now; any other page only hands out its link. A prefetched page that failed before its first byte is
 * served from its own window; after that, the page fails like any other.
 */
export async function* prefetchText(req: TextPageRequest): AsyncGenerator<Uint8Array, number> {
  const { snapshot, plan, ids, hasNext, signal, log } = req;
  const prefetches = snapshot.prefetches!;
  if (ids.length === 0) return 0;
  signal.throwIfAborted();
  const pre = takePrefetched(prefetches, plan);
  const pagingOn = pre !== undefined || (plan.after !== undefined && prefetches.followed(prefetchKey(plan)));
  if (hasNext) {
    const next = { ...plan, after: ids[ids.length - 1] };
    if (pagingOn) prefetches.keep(prefetchKey(next), prefetchPage(snapshot, next, log));
    else prefetches.handOut(prefetchKey(next));
  }
  if (!pre) return yield* windowText(req);
  const onAbort = () => pre.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    let first: IteratorResult<Uint8Array, number>;
    try {
      first = await pre.first;
    } catch (err) {
      signal.throwIfAborted();
      log(`prefetched page failed before its first byte, serving it from its own window: ${String(err)}`);
      return yield* windowText(req);
    }
    if (first.done) return first.value;
    yield first.value;
    return yield* pre.rest;
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Nothing left to do for a page read to its end; stops the COPY of one its client left.
    await pre.close();
  }
}

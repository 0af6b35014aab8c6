/**
 * Where a JSON or CSV page's rows come from. Usually one COPY of the page's Id window (phase two). For a client
 * that follows next links through a plain-filter extract, a cursor instead: from the second page on, one COPY of
 * every remaining row, read page by page, so that DuckDB renders the next page while the client takes in this one
 * (db/extract/cursor.ts). Either way the page has exactly the rows phase one found: the cursor's Ids are checked one by one.
 */
import { CursorError, MAX_FRAMED_ID } from '../db/extract/extract.js';
import { FORMATS, type TextFormat } from '../formats.js';
import type { Snapshot } from '../db/snapshot.js';
import { compileCursorRows } from '../query/compile-cursor.js';
import type { Key, PagePlan } from '../query/plan.js';
import type { PageWindow } from './page-window.js';

const encoder = new TextEncoder();

/** One JSON or CSV page to read: phase one's window and the page's Ids (without the extra one). */
export interface TextPageRequest {
  readonly snapshot: Snapshot;
  readonly plan: PagePlan & { readonly format: TextFormat };
  readonly window: PageWindow;
  readonly ids: readonly Key[];
  /** A next link follows this page. */
  readonly hasNext: boolean;
  readonly signal: AbortSignal;
  readonly log: (msg: string) => void;
}

const rowEndOf = (format: TextFormat) => FORMATS[format].rowEnd;

/**
 * The page's rows from one COPY of its own Id window, each followed by the format's row end; returns how many
 * were written. Invariant: the window's rows are exactly phase one's Ids (BETWEEN first and last with the same
 * filters, sorted): pinned by exec/page-window.test.ts 'rows(format, count, skip)…' and by stream/page-stream.ts,
 * which fails a page whose row count is not the one planned.
 */
export async function* windowText(req: TextPageRequest, skip = 0): AsyncGenerator<Uint8Array, number> {
  if (req.ids.length === 0) return 0;
  return yield* req.snapshot.copyText(req.window.rows(req.plan.format, req.ids.length, skip), rowEndOf(req.plan.format), req.signal);
}

/**
 * The page's rows from a cursor when one waits for this page or the client is paging on, else from its window.
 *
 * Invariants, each with the test that pins it (exec/page-text.test.ts unless named otherwise):
 * - Cursor identity: a request continues a cursor exactly when its cursor query's SQL text and values (the
 *   position included) equal those the cursor was stored under (db/extract/extract.ts): 'JSON: every page equals
 *   the per-page path…', 'CSV, with $select: the same pages as the per-page path'.
 * - Ids of 10^15 and more never use a cursor (the frame reads Ids as exact JS numbers): exec/large-ids.test.ts.
 * - A cursor opens only for a client that follows a link we handed out, on a window phase one found by scanning in
 *   stored order (`continuable`), for a cursor query whose plan keeps stored order: 'a page requested out of the
 *   blue … gets no cursor', 'region filters and sorted pages read per page'.
 * - Every row a cursor sends has the Id phase one found at its place, or the page fails (db/extract/cursor.test.ts 'a row
 *   whose Id is not the one phase one found fails the page and closes the cursor').
 * - Failure path: a cursor that cannot open leaves the page to its window; one that fails mid-page hands over how
 *   many rows it sent and the rest come from the window from that row on: 'a cursor that fails loses no page',
 *   'a cursor that cannot open leaves every page to its window'. Either is logged for an operator.
 */
export async function* cursorText(req: TextPageRequest): AsyncGenerator<Uint8Array, number> {
  const { snapshot, plan, window, ids, hasNext, signal, log } = req;
  const cursors = snapshot.cursors;
  if (ids.length === 0) return 0;
  // A cursor's frame carries Ids below 10^15 (db/extract/row-frame.ts); larger ones are served from their window.
  if (!cursors || BigInt(ids[ids.length - 1]!) >= MAX_FRAMED_ID) return yield* windowText(req);
  const rowEnd = rowEndOf(plan.format);

  const here = compileCursorRows(plan, plan.format);
  const next = hasNext ? compileCursorRows({ ...plan, after: ids[ids.length - 1] }, plan.format) : undefined;
  let cursor = cursors.take(here);
  if (!cursor && window.continuable && plan.after !== undefined && cursors.followed(here) && (await snapshot.keepsOrder(here, signal))) {
    // A cursor is only a faster way to the same rows: one that cannot open (its instance out of memory, no pipe)
    // leaves the page to its own window.
    cursor = await cursors.open(here).catch((err: unknown) => {
      log(`extract cursor not opened, serving the page from its own window: ${String(err)}`);
      return undefined;
    });
  }
  if (!cursor) {
    // Even a page phase one had to sort (the first page of a whole table may be) hands out its link: the pages
    // after it may well be continuable.
    if (next) cursors.handOut(next);
    return yield* windowText(req);
  }
  let rows: number;
  try {
    rows = yield* cursor.page(ids, encoder.encode(rowEnd), signal);
  } catch (err) {
    // The cursor is closed; the page is not lost: the rows it did not send come from their own window.
    if (!(err instanceof CursorError)) throw err;
    log(`extract cursor closed, the page's remaining rows come from their own window: ${err.message}`);
    return err.rows + (yield* windowText(req, err.rows));
  }
  await cursors.keep(cursor, next);
  return rows;
}

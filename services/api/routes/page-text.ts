/**
 * Where a JSON or CSV page's rows come from. Usually one COPY of the page's Id window (phase two). For a client
 * that follows next links through a plain-filter extract, a cursor instead: from the second page on, one COPY of
 * every remaining row, read page by page, so that DuckDB renders the next page while the client takes in this one
 * (db/cursor.ts). Either way the page has exactly the rows phase one found: the cursor's Ids are checked one by one.
 */
import { CursorError } from '../db/cursor.js';
import type { Snapshot } from '../db/snapshot.js';
import { compileCursorRows } from '../query/compile.js';
import type { PagePlan } from '../query/plan.js';
import type { CompiledQuery } from '../query/sql.js';
import type { PageWindow } from './page-window.js';

type Key = bigint | string;

const encoder = new TextEncoder();

/**
 * The rows of a page of `ids` (phase one's, without the extra one), each followed by the format's row end; returns
 * how many were written. `hasNext`: a next link follows this page.
 */
export async function* pageText(
  snapshot: Snapshot,
  plan: PagePlan & { format: 'json' | 'csv' },
  found: PageWindow,
  ids: readonly Key[],
  hasNext: boolean,
  signal: AbortSignal,
  log: (msg: string) => void = () => {},
): AsyncGenerator<Uint8Array, number> {
  if (ids.length === 0) return 0;
  const rowEnd = plan.format === 'csv' ? '\r\n' : ',';
  const perPage = () => snapshot.copyText(found.rows(plan.format, ids.length), rowEnd, signal);
  const cursors = snapshot.cursors;
  if (!cursors || plan.resource.table !== 'observations') return yield* perPage();

  const here = compileCursorRows(plan, plan.format);
  const hereKey = keyOf(here);
  const nextKey = hasNext ? keyOf(compileCursorRows({ ...plan, after: ids[ids.length - 1] }, plan.format)) : undefined;
  let cursor = cursors.take(hereKey);
  if (!cursor && found.continuable && plan.after !== undefined && cursors.followed(hereKey) && (await snapshot.keepsOrder(here, signal))) {
    // A cursor is only a faster way to the same rows: one that cannot open (its instance out of memory, no pipe)
    // leaves the page to its own window.
    cursor = await snapshot.openCursor(here).catch((err: unknown) => {
      log(`extract cursor not opened, serving the page from its own window: ${String(err)}`);
      return undefined;
    });
  }
  if (!cursor) {
    // Even a page phase one had to sort (the first page of a whole table may be) hands out its link: the pages
    // after it may well be continuable.
    if (nextKey) cursors.issue(nextKey);
    return yield* perPage();
  }
  let rows: number;
  try {
    rows = yield* cursor.page(ids, encoder.encode(rowEnd), signal);
  } catch (err) {
    // The cursor is closed; the page is not lost: the rows it did not send come from their own window.
    if (!(err instanceof CursorError)) throw err;
    log(`extract cursor closed, the page's remaining rows come from their own window: ${err.message}`);
    return err.rows + (yield* snapshot.copyText(found.rows(plan.format, ids.length, err.rows), rowEnd, signal));
  }
  if (nextKey) cursors.put(nextKey, cursor);
  else await cursor.close();
  return rows;
}

/** The cursor query's text and values: two requests continue the same cursor exactly when these are equal. */
function keyOf(q: CompiledQuery): string {
  return JSON.stringify([q.sql, q.params], (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/**
 * The rows a response carries, named by its handler (a page's ids, an export's count, a group page's groups) so
 * that the request's observer (middleware/observe.ts) counts them per format once the body has been sent whole: a
 * cut body's rows are not counted as served. What the request costs the pages' budget (middleware/page-rows.ts) is
 * those rows, unless its handler names another figure: an `$apply` costs the rows it reads (limits/apply-cost.ts).
 */
import type { Context } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    servedRows: number | undefined;
    chargedRows: number | undefined;
  }
}

export function servesRows(c: Context, rows: number): void {
  c.set('servedRows', rows);
}

export function servedRows(c: Context): number | undefined {
  return c.get('servedRows');
}

/** The request costs `rows` of the pages' budget, whatever rows it serves. */
export function chargesRows(c: Context, rows: number): void {
  c.set('chargedRows', rows);
}

/** What the request costs the pages' budget: the rows its handler charged, else the rows it serves. */
export function chargedRows(c: Context): number | undefined {
  return c.get('chargedRows') ?? servedRows(c);
}

/**
 * The rows a response carries, named by its handler (a page's ids, an export's count, a group page's groups) so
 * that the request's observer (middleware/observe.ts) counts them per format once the body has been sent whole: a
 * cut body's rows are not counted as served.
 */
import type { Context } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    servedRows: number | undefined;
  }
}

export function servesRows(c: Context, rows: number): void {
  c.set('servedRows', rows);
}

export function servedRows(c: Context): number | undefined {
  return c.get('servedRows');
}

/**
 * What an `$apply` costs the pages' budget (issue 56 item 1): the rows it reads, not the groups it returns. A
 * percentile per characteristic over every observation returns a few dozen groups and reads them all; charged by its
 * groups it cost less than a ten-row page. Reading a row costs the server far less than sending one, so the rows read
 * are charged at APPLY_ROWS_READ_PER_ROW to one row of the budget; the groups it sends are rows of a page, so it costs
 * at least those (and, as any request, PAGE_MIN_ROWS: middleware/page-rows.ts).
 */

/** Rows an `$apply` reads per row of the pages' budget it costs (APPLY_ROWS_READ_PER_ROW's default). */
export const DEFAULT_APPLY_ROWS_READ_PER_ROW = 1000;

/**
 * @example applyCost({ rowsRead: 10_000_000, groups: 40 }, 1000) // 10000
 * @example applyCost({ rowsRead: 500, groups: 40 }, 1000) // 40
 */
export function applyCost(result: { readonly rowsRead: number; readonly groups: number }, rowsReadPerRow = DEFAULT_APPLY_ROWS_READ_PER_ROW): number {
  return Math.max(result.groups, Math.ceil(result.rowsRead / rowsReadPerRow));
}

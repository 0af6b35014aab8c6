/**
 * A page of a resource in two phases: phase one finds the Ids of the page, phase two reads the rows of exactly that
 * Id window (docs/performance.md, "The path of a page"). exec/page-window.ts chooses how each is run.
 */
import type { Format } from '../formats.js';
import type { IdRange } from './membership.js';
import type { Key, PagePlan } from './plan.js';
import { renderRow, rowPoint } from './render-row.js';
import { afterKey, inIdRanges, keyValue, RESOURCE_ID, resourceTable, resourceWhere, whereClause } from './resource-where.js';
import { Params, type CompiledQuery } from './sql.js';

/** How a page query may be run (chosen by exec/page-window.ts from what it knows of the file and the plan). */
export interface PageQueryOptions {
  /** Add ORDER BY: needed unless DuckDB keeps the table's Id order for this plan. */
  readonly ordered: boolean;
  /** Only rows with an Id in one of these ranges (region filters resolved to Id ranges). */
  readonly idRanges?: readonly IdRange[];
  /** Row limit of phase one (default `top + 1`). */
  readonly limit?: number;
}

const orderBy = (opts: PageQueryOptions) => (opts.ordered ? ` ORDER BY ${RESOURCE_ID}` : '');

/**
 * Phase one of a page: the Ids of up to `top + 1` matching rows after the cursor. Only the key and the filter
 * columns are read. On a table whose pages are declared `stored` no ORDER BY when the plan allows: the table is stored
 * in Id order and DuckDB keeps insertion order under a plain LIMIT, so the scan stops after `top + 1` hits instead
 * of sorting every match.
 *
 * @example
 * compilePageIds(planQuery(parseQuery('$top=10'), getResource('Records')!))
 * // { sql: 'SELECT t."Id" FROM "observations" t LIMIT 11', params: [] }
 */
export function compilePageIds(plan: PagePlan, opts: PageQueryOptions = { ordered: plan.resource.pages.order === 'sorted' }): CompiledQuery {
  const params = new Params();
  const where = whereClause([inIdRanges(opts.idRanges, params), resourceWhere(plan, params), afterKey(plan, params)]);
  const sql = `SELECT ${RESOURCE_ID} FROM ${resourceTable(plan)}${where}${orderBy(opts)} LIMIT ${opts.limit ?? plan.top + 1}`;
  return { sql, params: params.values };
}

/**
 * Phase two: the rows of the page, bounded to the Id window phase one found. JSON and CSV are one text value per
 * row (`row`: a JSON object or a CSV line) that DuckDB's COPY writer streams out as it is; Arrow is `id` and one
 * typed column per field (query/render-row.ts). The window lets zone maps skip everything else; ORDER BY sorts at
 * most a page.
 */
export function compilePageRows(
  plan: PagePlan,
  window: { first: Key; last: Key },
  format: Format,
  opts: PageQueryOptions = { ordered: true },
): CompiledQuery {
  const params = new Params();
  const where = whereClause([
    `${RESOURCE_ID} BETWEEN ${params.bind(keyValue(plan, window.first))} AND ${params.bind(keyValue(plan, window.last))}`,
    inIdRanges(opts.idRanges, params),
    resourceWhere(plan, params),
  ]);
  // A GeoJSON row of a table of its own reads its location's point: joined for the page's window only.
  const point = format === 'geojson' ? (rowPoint(plan.resource.table)?.join ?? '') : '';
  const sql = `SELECT ${renderRow(format, plan.fields, plan.resource.table)} FROM ${resourceTable(plan)}${point}${where}${orderBy(opts)}`;
  return { sql, params: params.values };
}

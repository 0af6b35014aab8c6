/**
 * The average width of every served column as the JSON writer renders it, on a sample of rows: what a page of
 * n rows will weigh, known before the page is streamed (limits/page-size.ts). One query per table, a few
 * milliseconds each, once when a snapshot opens.
 */
import { resources, type PagesDoor, type ResourceTable } from '../../../schemas/index.js';
import { assertNever } from '../assert-never.js';
import { constant, ident, Params } from '../query/sql.js';
import type { QueryRunner } from './query-runner.js';

/** Average JSON text width in bytes of each served column, keyed `table.column` (for the page-size limit). */
export type ColumnWidths = ReadonlyMap<string, number>;

/** Rows per sample window, and windows per table. */
const WINDOW = 500n;
const WINDOWS = 10;

export async function measureWidths(run: QueryRunner['columns']): Promise<ColumnWidths> {
  const widths = new Map<string, number>();
  const byTable = new Map<ResourceTable, { readonly ids: PagesDoor['ids']; readonly columns: Set<string> }>();
  for (const r of resources) for (const f of r.fields) (byTable.get(r.table) ?? byTable.set(r.table, { ids: r.pages.ids, columns: new Set() }).get(r.table)!).columns.add(f.column);
  for (const [table, { ids, columns: set }] of byTable) {
    const columns = [...set];
    const avg = columns.map((c, i) => `avg(strlen(COALESCE(to_json(${ident(c)})::VARCHAR, ${constant('null')})))::DOUBLE AS w${i}`).join(', ');
    const params = new Params();
    const sample = await sampleOf(run, table, ids, params);
    const cols = await run({ sql: `SELECT ${avg} FROM (${sample})`, params: params.values });
    columns.forEach((c, i) => {
      const w = cols[`w${i}`]?.[0];
      if (typeof w === 'number') widths.set(`${table}.${c}`, Math.ceil(w));
    });
  }
  return widths;
}

/**
 * A table's sample by how its resource's Ids are spaced (its `pages` door): UUIDs have no windows, so the first rows;
 * sparse Ids (LocationId × 65536 + rank, ObservationId × 4096 + guideline) would put a row or none in a window of 500,
 * so windows of stored row numbers (DuckDB's rowid); dense ones windows of Ids.
 */
async function sampleOf(run: QueryRunner['columns'], table: ResourceTable, ids: PagesDoor['ids'], params: Params): Promise<string> {
  switch (ids) {
    case 'uuid':
      return `SELECT * FROM ${ident(table)} LIMIT 5000`;
    case 'sparse':
      return sampleWindows(run, table, params, 'rowid');
    case 'dense':
      return sampleWindows(run, table, params, '"Id"');
    default:
      return assertNever(ids);
  }
}

/**
 * Ten evenly spaced windows of 500 Ids (or stored row numbers), as constant ranges so zone maps let DuckDB read
 * only those: a reservoir sample of the whole table decompressed every column of every row.
 */
async function sampleWindows(run: QueryRunner['columns'], table: string, params: Params, key: '"Id"' | 'rowid'): Promise<string> {
  const b = await run({ sql: `SELECT min(${key}) AS lo, max(${key}) AS hi FROM ${ident(table)}`, params: [] });
  const lo = BigInt((b['lo']?.[0] as bigint | null) ?? 0n);
  const hi = BigInt((b['hi']?.[0] as bigint | null) ?? 0n);
  const bound = (value: bigint) => params.bind({ sqlType: 'BIGINT', value });
  return Array.from({ length: WINDOWS }, (_, i) => {
    const first = lo + ((hi - lo) * BigInt(i)) / BigInt(WINDOWS);
    return `SELECT * FROM ${ident(table)} WHERE ${key} BETWEEN ${bound(first)} AND ${bound(first + WINDOW - 1n)}`;
  }).join(' UNION ALL ');
}

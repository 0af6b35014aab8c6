import { boundsSql, geoColumnsSql, geoCopyOption, type Bbox } from '../../../schemas/geoparquet.js';
import { PARQUET_COPY_OPTIONS, parquetColumnsSql, textCopyOptions } from '../../../schemas/row-sql.js';
import type { ExportFormat } from '../export-formats.js';
import type { PagePlan } from './plan.js';
import { RESOURCE_NAMES, renderRow, rowPoint } from './render-row.js';
import { RESOURCE_ID, resourceTable, resourceWhere, whereClause } from './resource-where.js';
import { literal, Params, type CompiledQuery } from './sql.js';

/**
 * A whole result's query and, for the formats DuckDB writes itself, the options of the COPY that writes it
 * (db/extract/copy-export.ts). Arrow has none: its query gives the typed columns the Arrow writer frames.
 */
export type CompiledExport =
  | { readonly kind: 'copy'; readonly query: CompiledQuery; /** Fixed text per format, never user input. */ readonly options: string; readonly geo?: GeoOptions }
  | { readonly kind: 'columns'; readonly query: CompiledQuery };

/**
 * Parquet's GeoParquet `geo` metadata (schemas/geoparquet.ts) holds the result's bbox, which DuckDB writes from
 * the COPY's options: `bounds` is the query that finds it (one row of xmin, ymin, xmax, ymax), `options` the COPY's
 * options with it. Numbers and the system's own JSON only, never user input.
 */
export interface GeoOptions {
  readonly bounds: CompiledQuery;
  options(bbox: Bbox | undefined): string;
}

/** Rows per Parquet row group (schemas/row-sql.ts, shared with ingest's dataset files). */
export { PARQUET_ROW_GROUP } from '../../../schemas/row-sql.js';

/**
 * A whole-result export: every row the plan's filter matches, in stored (Id) order, as the format's COPY writes it.
 * No ORDER BY and no LIMIT: the resource's table is a plain scan, and DuckDB keeps insertion order (its
 * `preserve_insertion_order` default), which is Id order in every published file (db/order-check.ts).
 *
 * - Parquet: the fields as typed columns named as the API names them (UUIDs as text, as the Arrow pages send them),
 *   then GeoParquet's point `geometry` and its `bbox` from the row's coordinates, whatever `$select` names.
 * - CSV and NDJSON: the same row text as a `$format=csv` or JSON page (query/render-row.ts), written verbatim.
 * - Arrow: the same Id and typed columns as a `$format=arrow` page, framed by the page's Arrow writer.
 *
 * @example
 * compileExport(planQuery(parseQuery('$select=Id'), getResource('Records')!) as PagePlan, 'csv')
 * // { kind: 'copy', query: { sql: `SELECT concat_ws(',', CAST(t."Id" AS VARCHAR)) AS row FROM "observations" t`, params: [] },
 * //   options: `FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x01', NEW_LINE '\r\n'` }
 */
export function compileExport(plan: PagePlan, format: ExportFormat): CompiledExport {
  const params = new Params();
  // Parquet's point, on a table of its own its location's: joined before the WHERE.
  const where = format === 'parquet' ? rowPoint(plan.resource.table) : undefined;
  const from = `${resourceTable(plan)}${where?.join ?? ''}${whereClause([resourceWhere(plan, params)])}`;
  switch (format) {
    case 'parquet': {
      const columns = parquetColumnsSql(plan.fields, RESOURCE_NAMES);
      if (!where) return { kind: 'copy', query: { sql: `SELECT ${columns} FROM ${from}`, params: params.values }, options: PARQUET_COPY_OPTIONS };
      return {
        kind: 'copy',
        // Across the join DuckDB need not keep stored order: the export's rows are Id order, so say so.
        query: { sql: `SELECT ${columns}, ${geoColumnsSql(where.point, where.names)} FROM ${from}${where.join ? ` ORDER BY ${RESOURCE_ID}` : ''}`, params: params.values },
        options: PARQUET_COPY_OPTIONS,
        geo: {
          bounds: { sql: `SELECT ${boundsSql(where.point, where.names)} FROM ${from}`, params: params.values },
          options: (bbox) => `${PARQUET_COPY_OPTIONS}, ${geoCopyOption(bbox, literal)}`,
        },
      };
    }
    case 'csv':
      return { kind: 'copy', query: { sql: `SELECT ${renderRow('csv', plan.fields, plan.resource.table)} FROM ${from}`, params: params.values }, options: textCopyOptions('\\r\\n', literal) };
    case 'ndjson':
      return { kind: 'copy', query: { sql: `SELECT ${renderRow('json', plan.fields, plan.resource.table)} FROM ${from}`, params: params.values }, options: textCopyOptions('\\n', literal) };
    case 'arrow':
      return { kind: 'columns', query: { sql: `SELECT ${renderRow('arrow', plan.fields, plan.resource.table)} FROM ${from}`, params: params.values } };
  }
}

/**
 * Each format's row in SQL, one table per way DuckDB hands rows over (formats.ts): a text value per row that COPY
 * writes as it is, or the Id and typed columns for a columnar writer. Fields are read from the resource's table `t`.
 * The row text itself is built in schemas/row-sql.ts, shared with ingest's dataset files; quoting stays in sql.ts.
 */
import { locationIdColumns, pointColumns, storageKeys, type FieldDef, type ResourceDef } from '../../../schemas/index.js';
import type { PointColumns } from '../../../schemas/geoparquet.js';
import { csvRowSql, jsonRowSql, typedValueSql, type SqlNames } from '../../../schemas/row-sql.js';
import { isTextFormat, type Format, type TextFormat } from '../formats.js';
import { column, constant, ident } from './sql.js';
import { joinSource, LOCATIONS, RESOURCE, RESOURCE_ALIAS, sameLocation } from './source.js';

/** The resource's table: a GeoJSON row reads its point from it or its location (`rowPoint`). */
type Table = ResourceDef['table'];
type RowRenderer = (fields: readonly FieldDef[], table: Table) => string;

/** The resource's columns as `t."…"`, with the API's own quoting. */
export const RESOURCE_NAMES: SqlNames = { column: (name) => column(RESOURCE_ALIAS, name), ident, constant };
/** The row's location's columns as `l."…"`, joined by `RowPoint.join`. */
const LOCATION_NAMES: SqlNames = { column: (name) => column(LOCATIONS.alias, name), ident, constant };

/** Where a row's point is read: columns of its own, or its location's, which `join` (after FROM `t`) brings in. */
export interface RowPoint {
  readonly point: PointColumns;
  readonly names: SqlNames;
  readonly join: string;
}

/**
 * A row's point: the locations' own and the observations' denormalised coordinates; a row with a LocationId and no
 * point of its own (location summaries, comparisons, the index) its location's, one join per row; none on the others.
 */
export function rowPoint(table: Table): RowPoint | undefined {
  const own = (pointColumns as Partial<Record<Table, PointColumns>>)[table];
  if (own) return { point: own, names: RESOURCE_NAMES, join: '' };
  if (!(table in locationIdColumns)) return undefined;
  return { point: pointColumns.locations, names: LOCATION_NAMES, join: joinSource(LOCATIONS, sameLocation(LOCATIONS, RESOURCE[table])) };
}

export const TEXT_ROWS: { readonly [F in TextFormat]: RowRenderer } = {
  json: (fields) => jsonRowSql(fields, RESOURCE_NAMES),
  csv: (fields) => csvRowSql(fields, RESOURCE_NAMES),
  geojson: featureRow,
};
export const COLUMN_ROWS: { readonly [F in Exclude<Format, TextFormat>]: RowRenderer } = {
  arrow: (fields) => `${RESOURCE_NAMES.column(storageKeys.id)} AS id, ${typedColumns(fields)}${textBytes(fields)}`,
};

/** The name of the column that carries a row's text columns' bytes (db/chunk-columns.ts reads it). */
export const TEXT_BYTES_COLUMN = 'text_bytes';

/**
 * Every text column of the row (c0, c1, … of type string or uuid, in order) concatenated, NULL as nothing: DuckDB
 * hands a chunk's text over one pointer per value longer than 12 bytes, each fetched by a native call, and one
 * call per row for this column costs a fraction of one per value (docs/performance.md, §1 extract).
 */
function textBytes(fields: readonly FieldDef[]): string {
  const texts = fields.filter((f) => f.type === 'string' || f.type === 'uuid').map((f) => typedValueSql(f, RESOURCE_NAMES));
  return texts.length === 0 ? '' : `, concat(${texts.join(', ')}) AS ${TEXT_BYTES_COLUMN}`;
}

/**
 * The select list of a page's rows: `… AS row` (one text value) for JSON and CSV, `id`, `c0, c1, …` and the text
 * columns' bytes for Arrow.
 *
 * @example
 * renderRow('csv', [idField], 'observations') // `concat_ws(',', CAST(t."Id" AS VARCHAR)) AS row`
 */
export function renderRow(format: Format, fields: readonly FieldDef[], table: Table): string {
  return isTextFormat(format) ? `${TEXT_ROWS[format](fields, table)} AS row` : COLUMN_ROWS[format](fields, table);
}

function typedColumns(fields: readonly FieldDef[]): string {
  return fields.map((f, i) => `${typedValueSql(f, RESOURCE_NAMES)} AS c${i}`).join(', ');
}

/**
 * A GeoJSON Feature (RFC 7946): the row's Id, its point as [longitude, latitude] and the selected fields as its
 * properties. The frame is concatenated around the JSON row's `json_object`: nesting it in an outer `json_object`
 * makes DuckDB parse the inner object again, which costs more than the row (docs/performance.md, "Alternatives measured and rejected").
 */
function featureRow(fields: readonly FieldDef[], table: Table): string {
  const where = rowPoint(table);
  if (!where) throw new Error(`${table} rows have no point to write as GeoJSON`);
  const { point, names } = where;
  const parts = [
    constant('{"type":"Feature","id":'),
    RESOURCE_NAMES.column(storageKeys.id),
    constant(',"geometry":{"type":"Point","coordinates":['),
    names.column(point.longitude),
    constant(','),
    names.column(point.latitude),
    constant(']},"properties":'),
    jsonRowSql(fields, RESOURCE_NAMES),
    constant('}'),
  ];
  return `concat(${parts.join(', ')})`;
}

/**
 * Each format's row in SQL, one table per way DuckDB hands rows over (formats.ts): a text value per row that COPY
 * writes as it is, or the Id and typed columns for a columnar writer. Fields are read from the resource's table `t`.
 */
import { pointColumns, storageKeys, type FieldDef, type ResourceDef } from '../../../schemas/index.js';
import { isTextFormat, type Format, type TextFormat } from '../formats.js';
import { column, constant } from './sql.js';
import { RESOURCE_ALIAS } from './source.js';
import { assertNever } from '../assert-never.js';

/** The resource's table: a GeoJSON row reads its point from it (`pointColumns`). */
type Table = ResourceDef['table'];
type RowRenderer = (fields: readonly FieldDef[], table: Table) => string;

export const TEXT_ROWS: { readonly [F in TextFormat]: RowRenderer } = { json: jsonRow, csv: csvRow, geojson: featureRow };
export const COLUMN_ROWS: { readonly [F in Exclude<Format, TextFormat>]: RowRenderer } = {
  arrow: (fields) => `${field(storageKeys.id)} AS id, ${typedColumns(fields)}${textBytes(fields)}`,
};

/** The name of the column that carries a row's text columns' bytes (db/chunk-columns.ts reads it). */
export const TEXT_BYTES_COLUMN = 'text_bytes';

/**
 * Every text column of the row (c0, c1, … of type string or uuid, in order) concatenated, NULL as nothing: DuckDB
 * hands a chunk's text over one pointer per value longer than 12 bytes, each fetched by a native call, and one
 * call per row for this column costs a fraction of one per value (docs/performance.md, §1 extract).
 */
function textBytes(fields: readonly FieldDef[]): string {
  const texts = fields.filter((f) => f.type === 'string' || f.type === 'uuid').map(typedValue);
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

function field(name: string): string {
  return column(RESOURCE_ALIAS, name);
}

function typedColumns(fields: readonly FieldDef[]): string {
  return fields.map((f, i) => `${typedValue(f)} AS c${i}`).join(', ');
}

function typedValue(f: FieldDef): string {
  return f.type === 'uuid' ? `CAST(${field(f.column)} AS VARCHAR)` : field(f.column);
}

/**
 * One JSON object per row, keys in catalogue order, nulls written as null. DuckDB's `json_object` builds each row
 * in one pass: about four times faster than concatenating per-column JSON (55 ms against 200 ms for 10,000 Records
 * rows) and ~8% less CPU than `to_json(struct_pack(…))` (the same text for every row of the 10M sample; a struct
 * could not serve Locations either: its keys are case-insensitive, and Locations has both `Id` and `ID`).
 */
function jsonRow(fields: readonly FieldDef[]): string {
  return `${jsonObject(fields)}::VARCHAR`;
}

function jsonObject(fields: readonly FieldDef[]): string {
  const members = fields.map((f) => `${constant(f.name)}, ${f.type === 'timestamp' ? isoTimestamp(field(f.column)) : field(f.column)}`);
  return `json_object(${members.join(', ')})`;
}

/**
 * A GeoJSON Feature (RFC 7946): the row's Id, its point as [longitude, latitude] and the selected fields as its
 * properties. The frame is concatenated around the JSON row's `json_object`: nesting it in an outer `json_object`
 * makes DuckDB parse the inner object again, and costs twice the row (docs/performance.md, "Alternatives measured and rejected").
 */
function featureRow(fields: readonly FieldDef[], table: Table): string {
  const point = (pointColumns as Partial<Record<Table, { longitude: string; latitude: string }>>)[table];
  if (!point) throw new Error(`${table} rows have no point to write as GeoJSON`);
  const parts = [
    constant('{"type":"Feature","id":'),
    field(storageKeys.id),
    constant(',"geometry":{"type":"Point","coordinates":['),
    field(point.longitude),
    constant(','),
    field(point.latitude),
    constant(']},"properties":'),
    `${jsonObject(fields)}::VARCHAR`,
    constant('}'),
  ];
  return `concat(${parts.join(', ')})`;
}

/** Timestamps are served as ISO 8601 UTC with milliseconds: 2020-01-01T15:30:00.000Z. */
function isoTimestamp(c: string): string {
  return `strftime(${c}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
}

/** One RFC 4180 line per row (without the line break): text always quoted, nulls empty. */
function csvRow(fields: readonly FieldDef[]): string {
  // concat_ws copies each value once; a chain of || re-copies the growing line (measured 85 ms → 30 ms per page).
  return `concat_ws(',', ${fields.map((f) => csvValue(f)).join(', ')})`;
}

function csvValue(f: FieldDef): string {
  const text = csvText(field(f.column), f.type);
  return f.nullable ? `COALESCE(${text}, '')` : text;
}

function csvText(c: string, type: FieldDef['type']): string {
  switch (type) {
    case 'integer':
    case 'number':
    case 'uuid':
      return `CAST(${c} AS VARCHAR)`;
    case 'timestamp':
      return isoTimestamp(c);
    case 'date':
      return `strftime(${c}, '%Y-%m-%d')`;
    case 'time':
      return `left(CAST(${c} AS VARCHAR), 8)`;
    case 'date[]':
      return `'"' || array_to_string(list_transform(${c}, d -> strftime(d, '%Y-%m-%d')), ';') || '"'`;
    case 'string[]':
      return `'"' || replace(array_to_string(${c}, ';'), '"', '""') || '"'`;
    case 'string':
      return `'"' || replace(${c}, '"', '""') || '"'`;
    default:
      return assertNever(type);
  }
}

/**
 * A row of a resource in SQL, as the API serves it: the JSON object and the CSV line of a page, and the typed columns
 * of a Parquet export. The API's pages and exports (services/api/query/) and ingest's dataset files (issue 29) both
 * build their rows here, so a dataset's file holds the very bytes and values a query for it returns.
 *
 * Catalogue → SQL text only: no user input ever comes here. Quoting stays in each side's one sql.ts, handed in as
 * `SqlNames`, so this file escapes nothing itself.
 */
import { neutralisedCellSql } from './csv-cell.js';
import type { FieldDef } from './field.js';

export interface SqlNames {
  /** A field's column, qualified as the caller's query reads it (e.g. `t."Id"`). */
  column(name: string): string;
  /** A quoted identifier: an output column's name. */
  ident(name: string): string;
  /** A SQL string constant of catalogue text (a JSON key). */
  constant(text: string): string;
}

/**
 * Rows per Parquet row group: DuckDB's default (122,880) keeps a group of Records near a megabyte compressed, small
 * enough for a reader to fetch one by a range request, large enough for zstd and column statistics to work.
 */
export const PARQUET_ROW_GROUP = 122_880;

/** The COPY options of every Parquet file the system writes (exports and dataset files). */
export const PARQUET_COPY_OPTIONS = `FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${PARQUET_ROW_GROUP}`;

/**
 * DuckDB's CSV writer with quoting off writes each row's one text value verbatim. The query has one column, so the
 * delimiter is never written; it is set to a byte no row holds all the same. `newLine` is as DuckDB's NEW_LINE option
 * spells it (an escape, `\\r\\n` in TypeScript); `literal` is the caller's quoting. With `header`, the one column's
 * name is written first, as verbatim as the rows.
 */
export function textCopyOptions(newLine: '\\n' | '\\r\\n', literal: (text: string) => string, header = false): string {
  return `FORMAT csv, HEADER ${header}, QUOTE '', ESCAPE '', DELIMITER ${literal('\x01')}, NEW_LINE ${literal(newLine)}`;
}

/** The CSV header line of a selection (without the line break). */
export function csvHeader(fields: readonly FieldDef[]): string {
  return fields.map((f) => f.name).join(',');
}

/** A field's value as typed columns carry it: UUIDs as text (as Arrow pages and Parquet exports send them). */
export function typedValueSql(f: FieldDef, names: SqlNames): string {
  return f.type === 'uuid' ? `CAST(${names.column(f.column)} AS VARCHAR)` : valueSql(f, names);
}

/** A field's stored value as served: '' for a field the contract writes as an empty string when not given. */
function valueSql(f: FieldDef, names: SqlNames): string {
  return f.emptyWhenAbsent ? `COALESCE(${names.column(f.column)}, '')` : names.column(f.column);
}

/** The Parquet export's select list: the fields as typed columns named as the API names them. */
export function parquetColumnsSql(fields: readonly FieldDef[], names: SqlNames): string {
  return fields.map((f) => `${typedValueSql(f, names)} AS ${names.ident(f.name)}`).join(', ');
}

/**
 * One JSON object per row, keys in catalogue order, nulls written as null. DuckDB's `json_object` builds each row
 * in one pass: faster than concatenating per-column JSON and cheaper than `to_json(struct_pack(…))`, which writes
 * the same text (docs/performance.md, Alternatives measured and rejected); a struct could not serve Locations
 * either: its keys are case-insensitive, and Locations has both `Id` and `ID`.
 */
export function jsonRowSql(fields: readonly FieldDef[], names: SqlNames): string {
  const members = fields.map((f) => `${names.constant(f.name)}, ${f.type === 'timestamp' ? isoTimestamp(names.column(f.column)) : valueSql(f, names)}`);
  return `json_object(${members.join(', ')})::VARCHAR`;
}

/** Timestamps are served as ISO 8601 UTC with milliseconds: 2020-01-01T15:30:00.000Z. */
function isoTimestamp(c: string): string {
  return `strftime(${c}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
}

/**
 * One RFC 4180 line per row (without the line break): text always quoted, nulls empty, and a text cell a spreadsheet
 * would run as a formula written with a leading `'` (csv-cell.ts); numbers, dates and times as they are.
 */
export function csvRowSql(fields: readonly FieldDef[], names: SqlNames): string {
  // concat_ws copies each value once; a chain of || re-copies the growing line at every step.
  return `concat_ws(',', ${fields.map((f) => csvValue(f, names)).join(', ')})`;
}

function csvValue(f: FieldDef, names: SqlNames): string {
  const text = csvText(names.column(f.column), f.type, names);
  return f.nullable ? `COALESCE(${text}, '')` : text;
}

function csvText(c: string, type: FieldDef['type'], names: SqlNames): string {
  switch (type) {
    case 'integer':
    case 'boolean':
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
      return `'"' || replace(${neutralisedCellSql(`array_to_string(${c}, ';')`, names.constant)}, '"', '""') || '"'`;
    case 'integer[]':
      return `'"' || array_to_string(${c}, ';') || '"'`;
    case 'string':
      return `'"' || replace(${neutralisedCellSql(c, names.constant)}, '"', '""') || '"'`;
    default: {
      const never: never = type;
      throw new Error(`no CSV text for type ${String(never)}`);
    }
  }
}

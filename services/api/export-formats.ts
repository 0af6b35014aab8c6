/**
 * The formats of a whole-result export (`/v1/export/{resource}`, routes/export.ts), declared once: the
 * route negotiates them (`$format` or `Accept`), query/compile-export.ts compiles each one's query (a COPY for
 * Parquet, CSV and NDJSON; typed columns for Arrow, which DuckDB's core cannot COPY), OpenAPI offers them. Separate from formats.ts, the paged formats: an export never pages, and Parquet cannot be a page.
 */
import { resources } from '../../schemas/index.js';
import { negotiate, type AcceptOffer } from './accept-ranges.js';

/**
 * The resources a whole result can be exported from: those whose `export` door is open (schemas/catalogue.ts: the
 * row-per-observation ones and the tables of their own); Locations and Metadata are their dataset files' job.
 */
export const EXPORT_RESOURCES: readonly string[] = resources.filter((r) => r.export).map((r) => r.name);
/** The header carrying the exact number of rows an export's body holds. */
export const COUNT_HEADER = 'X-Total-Count';

export interface ExportFormatDef {
  /** Accepted as a `$format` value and in `Accept`. */
  readonly mediaType: string;
  readonly contentType: string;
  /** The file name's extension in Content-Disposition. */
  readonly extension: string;
  /** What OpenAPI says a 200 of this format holds. */
  readonly description: string;
}

export const EXPORT_FORMATS = {
  parquet: {
    mediaType: 'application/vnd.apache.parquet',
    contentType: 'application/vnd.apache.parquet',
    extension: 'parquet',
    description: 'Apache Parquet (zstd), one column per field with the API\'s names and types (timestamps UTC, dates, numbers, text), then GeoParquet 1.1\'s geometry (WKB point, CRS84) and bbox columns.',
  },
  csv: {
    mediaType: 'text/csv',
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    description: 'RFC 4180 with a header row: the same lines as $format=csv pages, every matching row.',
  },
  ndjson: {
    mediaType: 'application/x-ndjson',
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'ndjson',
    description: 'Newline-delimited JSON: one object per row, the same objects as a JSON page\'s "value" items.',
  },
  arrow: {
    mediaType: 'application/vnd.apache.arrow.stream',
    contentType: 'application/vnd.apache.arrow.stream',
    extension: 'arrows',
    description: 'An Arrow IPC stream, one record batch per DuckDB chunk: the schema and values of $format=arrow pages, every matching row.',
  },
} as const satisfies Record<string, ExportFormatDef>;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

/** Without `$format` and without an Accept naming one of them (`*\/*`, none): Parquet, the format made for bulk. */
export const DEFAULT_EXPORT_FORMAT: ExportFormat = 'parquet';

export function isExportFormat(name: string): name is ExportFormat {
  return Object.hasOwn(EXPORT_FORMATS, name);
}

/** `$format` takes a name (`parquet`) or a media type (`application/vnd.apache.parquet`). */
export function exportFormatByName(value: string): ExportFormat | undefined {
  const v = value.trim().toLowerCase();
  if (isExportFormat(v)) return v;
  return EXPORT_FORMAT_NAMES.find((f) => EXPORT_FORMATS[f].mediaType === v);
}

/**
 * The format an Accept header asks for: the first listed media range (by q, then order) that names one; `*\/*` or
 * no header gives the default; undefined when the header names only formats we do not export (406).
 */
export function exportFormatFromAccept(accept: string | undefined): ExportFormat | undefined {
  return negotiate(accept, EXPORT_OFFER);
}

const EXPORT_OFFER: AcceptOffer<ExportFormat> = { byType: new Map(EXPORT_FORMAT_NAMES.map((f) => [EXPORT_FORMATS[f].mediaType, f] as const)), any: DEFAULT_EXPORT_FORMAT, text: 'csv' };

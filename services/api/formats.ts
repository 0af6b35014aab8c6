/**
 * The response formats, declared once. The parser reads the names and media types ($format), the route the
 * content type and which Accept header asks for a format, the execution stage how a format's rows are read (text
 * from DuckDB's COPY writer or typed columns), OpenAPI and `$metadata` what is offered.
 *
 * What each format does is a `{ [F in Format]: … }` table beside the stage that does it, so a new entry here fails
 * to compile until every stage handles it: the row renderers in query/render-row.ts (TEXT_ROWS, COLUMN_ROWS), the
 * frame and writer in stream/page-writers.ts (PAGE_WRITERS). They are not functions in this table because this
 * table is data every stage may read (odata/ included), and odata/ and query/ never import the writers.
 */
import { acceptedRanges } from './accept-ranges.js';

export interface FormatDef {
  /** The media type: also accepted as a `$format` value, and offered in OpenAPI and `$metadata`. */
  readonly mediaType: string;
  readonly contentType: string;
  /** An `Accept` header naming the media type asks for the format as `$format` does (JSON is the default: never a 406). */
  readonly byAccept: boolean;
  /** How DuckDB hands a page's rows over: one text value per row through COPY, or typed columns. */
  readonly rows: 'text' | 'columns';
  /** Text rows: what COPY writes after each row (JSON's last comma is dropped by the writer's frame). */
  readonly rowEnd?: ',' | '\r\n';
  /** What OpenAPI says a 200 of this format holds. */
  readonly description: string;
  /** The API that serves it: OData's `$format`, Accept, `$metadata` and OpenAPI offer only the `odata` ones. */
  readonly api: 'odata' | 'features';
}

export const FORMATS = {
  json: {
    mediaType: 'application/json',
    contentType: 'application/json; charset=utf-8',
    byAccept: false,
    rows: 'text',
    rowEnd: ',',
    description: 'OData JSON: {"@odata.context", "value": [rows], "@odata.nextLink" when there is a next page}.',
    api: 'odata',
  },
  csv: {
    mediaType: 'text/csv',
    contentType: 'text/csv; charset=utf-8',
    byAccept: true,
    rows: 'text',
    rowEnd: '\r\n',
    description: "$format=csv or Accept: text/csv: RFC 4180, a header row, then one row per record; the next page in the Link header. Text a spreadsheet would run as a formula (first character = + - @, tab or CR, unless it is a number or a UTC offset) is written with a leading '.",
    api: 'odata',
  },
  arrow: {
    mediaType: 'application/vnd.apache.arrow.stream',
    contentType: 'application/vnd.apache.arrow.stream',
    byAccept: true,
    rows: 'columns',
    description: '$format=arrow or Accept: application/vnd.apache.arrow.stream: an Arrow IPC stream, one record batch per chunk; the next page in the Link header.',
    api: 'odata',
  },
  // OGC API – Features' items (services/api/ogc/): a Feature per row, written by DuckDB as JSON rows are.
  geojson: {
    mediaType: 'application/geo+json',
    contentType: 'application/geo+json',
    byAccept: false,
    rows: 'text',
    rowEnd: ',',
    description: 'A GeoJSON FeatureCollection: a Point Feature per row, numberMatched, numberReturned, timeStamp and links.',
    api: 'features',
  },
} as const satisfies Record<string, FormatDef>;

export type Format = keyof typeof FORMATS;

/** Every JSON document of the API (pages, errors, discovery, downloads) is sent as this. */
export const JSON_TYPE = FORMATS.json.contentType;

/** The formats whose rows DuckDB writes as text (JSON, CSV). */
export type TextFormat = { [F in Format]: (typeof FORMATS)[F]['rows'] extends 'text' ? F : never }[Format];

/** The formats OData offers (`$format`, Accept, `$metadata`, OpenAPI); the features API's are not among them. */
export const FORMAT_NAMES = (Object.keys(FORMATS) as Format[]).filter((f) => FORMATS[f].api === 'odata');

export function isTextFormat(format: Format): format is TextFormat {
  return FORMATS[format].rows === 'text';
}

/**
 * A `$format` value (a name or a media type, already lower-cased and without media-type parameters) → its format.
 *
 * @example
 * formatNamed('text/csv') // → 'csv'
 */
export function formatNamed(value: string): Format | undefined {
  return FORMAT_NAMES.find((f) => f === value || FORMATS[f].mediaType === value);
}

/** The format an `Accept` header asks for, if it names one that is chosen by Accept. */
export function formatFromAccept(accept: string | undefined): Format | undefined {
  if (!accept) return undefined;
  for (const { type } of acceptedRanges(accept)) {
    const format = FORMAT_NAMES.find((f) => FORMATS[f].byAccept && FORMATS[f].mediaType === type);
    if (format) return format;
  }
  return undefined;
}

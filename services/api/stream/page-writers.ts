/**
 * Each format's page writer: how the rows the execution stage reads are framed into a response body (formats.ts
 * declares the formats; a new one fails to compile here until it has a writer).
 */
import type { FieldDef } from '../../../schemas/index.js';
import type { PageRows } from '../exec/execute.js';
import type { Format } from '../formats.js';
import { csvHeader } from '../../../schemas/row-sql.js';
import { arrowFrame } from './arrow-frame.js';
import { pageStream, textPageStream, type TextFrame } from './page-stream.js';

/** What a page's frame says around its rows. */
export interface PageFrame {
  readonly fields: readonly FieldDef[];
  /** The JSON `@odata.context` URL. */
  readonly context: string;
  /** The next page's URL, when there is one (JSON puts it in the body; every format has it in the Link header). */
  readonly next: string | undefined;
  /** Exactly how many rows phase one planned: a page with another count is cut, never completed. */
  readonly count: number;
  /** JSON's `@odata.count`: every row the filter matches (`$top=0&$count=true`). */
  readonly total?: number;
  /**
   * GeoJSON: the FeatureCollection's members other than `features` (numberMatched, numberReturned, timeStamp,
   * links), all known before the first row: written ahead of the features.
   */
  readonly members?: Readonly<Record<string, unknown>>;
}

export type PageWriter = (rows: PageRows, frame: PageFrame) => Promise<ReadableStream<Uint8Array>>;

/**
 * @example
 * const body = await PAGE_WRITERS[plan.format](result.rows, { fields: plan.fields, context, next, count: result.ids.length });
 */
export const PAGE_WRITERS: { readonly [F in Format]: PageWriter } = {
  json: (rows, frame) => textPageStream(textOf(rows), jsonFrame(frame), frame),
  csv: (rows, frame) => textPageStream(textOf(rows), csvFrame(frame.fields), frame),
  arrow: (rows, frame) => pageStream(columnsOf(rows), arrowFrame(frame.fields), frame),
  geojson: (rows, frame) => textPageStream(textOf(rows), featureCollectionFrame(frame), frame),
};

/** COPY ends every Feature with a comma, as a JSON row: the frame drops the last one. */
function featureCollectionFrame({ members }: PageFrame): TextFrame {
  const head = JSON.stringify({ type: 'FeatureCollection', ...members });
  return { prefix: `${head.slice(0, -1)},"features":[`, suffix: ']}', trailer: ',' };
}

/** COPY ends every row with a comma: the frame drops the last one. */
function jsonFrame({ context, next, total }: PageFrame): TextFrame {
  const suffix = next ? `],"@odata.nextLink":${JSON.stringify(next)}}` : ']}';
  const count = total === undefined ? '' : `"@odata.count":${total},`;
  return { prefix: `{"@odata.context":${JSON.stringify(context)},${count}"value":[`, suffix, trailer: ',' };
}

/** RFC 4180: a header line, then one CRLF-terminated line per row. */
function csvFrame(fields: readonly FieldDef[]): TextFrame {
  return { prefix: `${csvHeader(fields)}\r\n`, suffix: '', trailer: '' };
}

/** The CSV header line of a selection (schemas/row-sql.ts, shared with ingest's dataset files). */
export { csvHeader };

function textOf(rows: PageRows): AsyncGenerator<Uint8Array, number> {
  if (rows.kind !== 'text') throw new Error(`a text format was handed ${rows.kind} rows`);
  return rows.chunks;
}

function columnsOf(rows: PageRows): Extract<PageRows, { kind: 'columns' }>['chunks'] {
  if (rows.kind !== 'columns') throw new Error(`a columnar format was handed ${rows.kind} rows`);
  return rows.chunks;
}

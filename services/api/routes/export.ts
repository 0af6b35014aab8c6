/**
 * GET /v1/export/{Records|Observations}: every row a `$filter`/`$select` matches, in one streamed response, as
 * Parquet, CSV, NDJSON or Arrow (export-formats.ts). The same stages as a page (parse → plan → execute → respond), with
 * the paging options refused, the exact row count sent before the first byte (`X-Total-Count`), and a time limit
 * of its own (EXPORT_TIMEOUT_MS) over the whole transfer. Keys, rate limits, the per-key export limit and the query
 * gate are middleware/access.ts's.
 */
import type { Context } from 'hono';
import { getResource } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { executeExport } from '../exec/export.js';
import { DEFAULT_EXPORT_FORMAT, EXPORT_FORMATS, EXPORT_FORMAT_NAMES, exportFormatByName, exportFormatFromAccept, type ExportFormat } from '../export-formats.js';
import { ODataError, parseQuery } from '../odata/index.js';
import { queryDeadline } from '../limits/query-deadline.js';
import { planQuery, type PagePlan } from '../query/plan.js';
import { PlanError } from '../query/plan-error.js';
import { csvHeader } from '../stream/page-writers.js';
import { arrowFrame } from '../stream/arrow-frame.js';
import { exportStream } from '../stream/export-stream.js';
import { pageStream } from '../stream/page-stream.js';
import type { CollectionDeps } from './collection.js';
import { rawQueryString } from './collection.js';
import { matchesIfNoneMatch, publicationETag } from './publication-etag.js';

export const EXPORT_PATH = '/v1/export';
/** The resources a whole result can be exported from: the row-per-observation ones. */
export const EXPORT_RESOURCES = ['Records', 'Observations'] as const;
/** The header carrying the exact number of rows the body holds. */
export const COUNT_HEADER = 'X-Total-Count';

export interface ExportDeps extends Pick<CollectionDeps, 'acquire'> {
  /** EXPORT_TIMEOUT_MS: the whole transfer, first byte to last; unlimited when left out. */
  readonly timeoutMs?: number;
}

const PAGING_OPTIONS = ['$top', '$skiptoken', '$count', '$apply'] as const;
const FORMAT_LIST = EXPORT_FORMAT_NAMES.map((f) => `${f} (${EXPORT_FORMATS[f].mediaType})`).join(', ');
const encoder = new TextEncoder();
const EXPORT_TIMEOUT = (seconds: number) =>
  `The export did not start within ${seconds} s (EXPORT_TIMEOUT_MS) and was stopped. Narrow $filter (a DOI, a LocationId, a date range) or export in parts.`;

export function exportHandler(deps: ExportDeps) {
  return async function exportResult(c: Context): Promise<Response> {
    const name = c.req.param('resource') ?? '';
    const resource = (EXPORT_RESOURCES as readonly string[]).includes(name) ? getResource(name) : undefined;
    if (!resource) {
      throw new ApiError('not_found', `No export at ${c.req.path}. Exports: ${EXPORT_PATH}/Records and ${EXPORT_PATH}/Observations, with $filter and $select as on /v1/odata/v4.`);
    }
    const { query: raw, format: formatParam } = splitFormat(rawQueryString(c));
    const format = negotiate(formatParam, c.req.header('accept'));
    const plan = planExport(raw, resource);

    const acquired = deps.acquire();
    const { snapshot, publication } = acquired;
    let released = false;
    const release = () => {
      if (!released) acquired.release();
      released = true;
    };
    const headers: Record<string, string> = {
      'Content-Type': EXPORT_FORMATS[format].contentType,
      'Content-Disposition': `attachment; filename="${resource.name}.${EXPORT_FORMATS[format].extension}"`,
      // An export is one publication's rows: cacheable only as long as the publication is served.
      'Cache-Control': 'no-cache',
    };
    if (publication) {
      headers['ETag'] = publicationETag(publication);
      if (matchesIfNoneMatch(c.req.header('if-none-match'), headers['ETag'])) {
        release();
        return c.body(null, 304, headers);
      }
    }
    // The client's disconnect and EXPORT_TIMEOUT_MS interrupt the query; the clock runs until the last byte.
    const deadline = queryDeadline(c.req.raw.signal, deps.timeoutMs, EXPORT_TIMEOUT);
    let body: ReadableStream<Uint8Array> | null = null;
    try {
      const result = await executeExport(plan, format, snapshot, deadline.signal);
      headers[COUNT_HEADER] = String(result.count);
      const { rows } = result;
      if (c.req.method === 'HEAD') {
        await (rows.kind === 'bytes' ? rows.chunks.return(0) : rows.chunks.return(undefined));
        return c.body(null, 200, headers);
      }
      const done = () => (release(), deadline.stop());
      if (rows.kind === 'columns') {
        // The Arrow page writer over every row: its frame checks Id order and the count as for a page.
        body = await pageStream(whileOpen(rows.chunks, done), arrowFrame(plan.fields), { count: result.count });
      } else {
        const prefix = format === 'csv' ? encoder.encode(`${csvHeader(plan.fields)}\r\n`) : undefined;
        body = await exportStream(whileOpen(rows.chunks, done), prefix, result.count);
      }
      return c.body(body, 200, headers);
    } catch (err) {
      throw deadline.explain(err);
    } finally {
      // Without a body nothing streams: the snapshot and the clock are released now.
      if (!body) {
        release();
        deadline.stop();
      }
    }
  };
}

/** `$format` is the export's own (parquet, csv, ndjson); everything else is the OData query as a page reads it. */
function splitFormat(queryString: string): { query: string; format: string | undefined } {
  let format: string | undefined;
  const rest: string[] = [];
  for (const part of queryString.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = safeDecode(eq < 0 ? part : part.slice(0, eq));
    if (key.toLowerCase() !== '$format') {
      rest.push(part);
      continue;
    }
    if (format !== undefined) throw new ApiError('duplicate_option', '$format is given more than once: give it once.', { parameter: '$format' });
    format = safeDecode(eq < 0 ? '' : part.slice(eq + 1));
  }
  return { query: rest.join('&'), format };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

function negotiate(formatParam: string | undefined, accept: string | undefined): ExportFormat {
  if (formatParam !== undefined) {
    const f = exportFormatByName(formatParam.split(';')[0] ?? '');
    if (f) return f;
    throw new ApiError('not_acceptable', `$format=${formatParam.slice(0, 60)} cannot be exported. Formats: ${FORMAT_LIST}; without $format or Accept, ${DEFAULT_EXPORT_FORMAT}.`, { parameter: '$format' });
  }
  const f = exportFormatFromAccept(accept);
  if (f) return f;
  throw new ApiError('not_acceptable', `Accept: ${(accept ?? '').slice(0, 100)} names no format an export is written in. Formats: ${FORMAT_LIST}; or send $format=<name>.`);
}

/** The page's parse and plan, so a filter that cannot be a page cannot be an export either (the same 400). */
function planExport(queryString: string, resource: NonNullable<ReturnType<typeof getResource>>): PagePlan {
  try {
    const query = parseQuery(queryString);
    for (const option of PAGING_OPTIONS) {
      const given = option === '$count' ? query.count : query[option.slice(1) as 'top' | 'skiptoken' | 'apply'] !== undefined;
      if (given) {
        throw new ApiError('unsupported_option', `${option} does not apply to an export, which sends every matching row at once: leave it out, or page with ${'/v1/odata/v4/'}${resource.name}.`, { parameter: option });
      }
    }
    const plan = planQuery(query, resource);
    if (plan.kind !== 'page') throw new Error(`an export planned as ${plan.kind}`);
    return plan;
  } catch (err) {
    if (err instanceof ODataError || err instanceof PlanError) throw ApiError.from(err);
    throw err;
  }
}

/** Runs `done` once the body's generator has finished, failed or been abandoned. */
async function* whileOpen<T, R>(source: AsyncGenerator<T, R>, done: () => void): AsyncGenerator<T, R> {
  try {
    return yield* source;
  } finally {
    done();
  }
}

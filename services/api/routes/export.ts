/**
 * GET /v1/export/{Records|Observations}: every row a `$filter`/`$select` matches, in one streamed response, as
 * Parquet, CSV, NDJSON or Arrow (export-formats.ts). The same stages as a page (parse → plan → execute → respond), with
 * the paging options refused and the exact row count sent before the first byte (`X-Total-Count`). Its time limit
 * (EXPORT_TIMEOUT_MS over the whole transfer), ETag and release are the lease's (http/paths.ts declares them); keys,
 * rate limits, the per-key export limit and the query gate are middleware/access.ts's.
 */
import type { Context } from 'hono';
import { getResource } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { executeExport } from '../exec/export.js';
import { COUNT_HEADER, DEFAULT_EXPORT_FORMAT, EXPORT_FORMATS, EXPORT_FORMAT_NAMES, EXPORT_RESOURCES, exportFormatByName, exportFormatFromAccept, type ExportFormat } from '../export-formats.js';
import { signposts } from '../citation/signposts.js';
import { ODataError, parseQuery } from '../odata/index.js';
import type { Query } from '../odata/ast.js';
import { planQuery, type PagePlan } from '../query/plan.js';
import { PlanError } from '../query/plan-error.js';
import { csvHeader } from '../stream/page-writers.js';
import { arrowFrame } from '../stream/arrow-frame.js';
import { exportStream } from '../stream/export-stream.js';
import { pageStream } from '../stream/page-stream.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import { linkHeader } from '../http/links.js';
import { NEXT_LINK_PARAM, PATHS } from '../http/paths.js';
import { rawQueryString, takeOption } from '../http/request-query.js';
import { servesRows } from '../http/served-rows.js';

const PAGING_OPTIONS = ['$top', NEXT_LINK_PARAM.odata, '$count', '$apply'] as const;
const FORMAT_LIST = EXPORT_FORMAT_NAMES.map((f) => `${f} (${EXPORT_FORMATS[f].mediaType})`).join(', ');
const encoder = new TextEncoder();

export function exportHandler(deps: Pick<HandlerDeps, 'links'>) {
  return async function exportResult(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const name = c.req.param('resource') ?? '';
    const resource = getResource(name);
    if (!resource?.export) {
      const why = resource ? `${resource.name} declares no export (its rows are small: page them at ${PATHS.odata}/${resource.name}, or take every dataset's files at ${PATHS.downloads})` : `No export at ${c.req.path}`;
      throw new ApiError('not_found', `${why}. Exports: ${EXPORT_RESOURCES.map((r) => `${PATHS.export}/${r}`).join(', ')}, with $filter and $select as on ${PATHS.odata}.`);
    }
    // `$format` is the export's own (parquet, csv, ndjson, arrow); everything else is the OData query as a page reads it.
    const { query: raw, value: formatParam } = takeOption(rawQueryString(c), ['$format']);
    const format = negotiate(formatParam, c.req.header('accept'));
    const { plan, query } = planExport(raw, resource);
    const headers: Record<string, string> = {
      'Content-Type': EXPORT_FORMATS[format].contentType,
      'Content-Disposition': `attachment; filename="${resource.name}.${EXPORT_FORMATS[format].extension}"`,
    };
    const link = linkHeader(undefined, query, await signposts(c.get('base'), resource.name, query.filter, query, lease));
    if (link) headers['Link'] = link;
    const result = await executeExport(plan, format, lease.snapshot, lease.signal);
    headers[COUNT_HEADER] = String(result.count);
    const { rows } = result;
    if (c.req.method === 'HEAD') {
      await (rows.kind === 'bytes' ? rows.chunks.return(0) : rows.chunks.return(undefined));
      return c.body(null, 200, headers);
    }
    servesRows(c, result.count);
    if (rows.kind === 'columns') {
      // The Arrow page writer over every row: its frame checks Id order and the count as for a page.
      return c.body(await pageStream(lease.hold(rows.chunks), arrowFrame(plan.fields), { count: result.count }), 200, headers);
    }
    const prefix = format === 'csv' ? encoder.encode(`${csvHeader(plan.fields)}\r\n`) : undefined;
    return c.body(await exportStream(lease.hold(rows.chunks), prefix, result.count), 200, headers);
  };
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
function planExport(queryString: string, resource: NonNullable<ReturnType<typeof getResource>>): { plan: PagePlan; query: Query } {
  try {
    const query = parseQuery(queryString);
    for (const option of PAGING_OPTIONS) {
      const given = option === '$count' ? query.count : query[option.slice(1) as 'top' | 'skiptoken' | 'apply'] !== undefined;
      if (given) {
        throw new ApiError('unsupported_option', `${option} does not apply to an export, which sends every matching row at once: leave it out, or page with ${PATHS.odata}/${resource.name}.`, { parameter: option });
      }
    }
    const plan = planQuery(query, resource);
    if (plan.kind !== 'page') throw new Error(`an export planned as ${plan.kind}`);
    return { plan, query };
  } catch (err) {
    if (err instanceof ODataError || err instanceof PlanError) throw ApiError.from(err);
    throw err;
  }
}

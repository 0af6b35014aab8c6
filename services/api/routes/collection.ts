/**
 * GET /v1/odata/v4/{Metadata|Locations|Observations|Records}: one request, one pass through the stages
 * (parse → plan → execute → respond), each handing one typed value to the next.
 */
import type { Context } from 'hono';
import { getResource, type ResourceDef } from '../../../schemas/index.js';
import { assertNever } from '../assert-never.js';
import { ApiError } from '../errors.js';
import type { Query } from '../odata/ast.js';
import { execute, type ApplyResult, type PageResult, type PageRows } from '../exec/execute.js';
import { FORMATS, formatFromAccept, JSON_TYPE } from '../formats.js';
import { planQuery, type Plan } from '../query/plan.js';
import { citedFilter } from '../query/plan-citation.js';
import { signposts } from '../citation/signposts.js';
import { PlanError } from '../query/plan-error.js';
import { checkApplySize, checkPageSize } from '../limits/page-size.js';
import { applyBytes, applyCsvFrame, applyStream, type ApplyFormat } from '../stream/apply-stream.js';
import { PAGE_WRITERS } from '../stream/page-writers.js';
import type { Lease } from '../http/lease.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import { contextUrl, linkHeader, nextApplyLink, nextLink, type Signposts } from '../http/links.js';
import { notFound } from '../http/not-found.js';
import { PATHS } from '../http/paths.js';
import { parseQueryString, parseRequestQuery, rawQueryString } from '../http/request-query.js';
import { chargesRows, servesRows } from '../http/served-rows.js';
import { applyCost } from '../limits/apply-cost.js';
import { DEFAULT_MAX_BODY_BYTES, readQueryBody } from '../http/request-body.js';

/** Planning's errors, answered as every other 400: code, message and the offending parameter. */
export function planRequest(query: Query, resource: ResourceDef): Plan {
  try {
    return planQuery(query, resource);
  } catch (err) {
    if (err instanceof PlanError) throw ApiError.from(err);
    throw err;
  }
}

/** OData's `POST …/{resource}/$query`: the body's options (text/plain, encoded as in a URL) after the URL's own. */
export async function bodyQuery(c: Context, deps: HandlerDeps): Promise<Query> {
  const body = await readQueryBody(c, { maxBytes: deps.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, types: ['text/plain'], holds: 'the query options, encoded as in a URL ($filter=…&$top=…)' });
  return parseQueryString([rawQueryString(c), body.trim()].filter((part) => part !== '').join('&'));
}

/** `readQuery`: where the query is, the URL's query string (GET) or the body (`bodyQuery`). */
export function collectionHandler(deps: HandlerDeps, readQuery: (c: Context, deps: HandlerDeps) => Query | Promise<Query> = parseRequestQuery) {
  return async function collection(c: Context): Promise<Response> {
    const lease = c.get('lease');
    const resource = getResource(c.req.param('resource') ?? '');
    if (!resource) throw notFound(c.req.path);
    const parsed = await readQuery(c, deps);
    lease.timing.mark('parse');
    // An Accept header asks for a format as $format does; anything else is JSON, never a 406.
    const accepted = parsed.format ?? formatFromAccept(c.req.header('accept'));
    const query: Query = accepted && !parsed.format ? { ...parsed, format: accepted } : parsed;
    const plan = planRequest(query, resource);
    lease.timing.mark('plan');
    const result = await execute(plan, lease.snapshot, lease.signal, { log: deps.log, maxApplyGroups: deps.limits?.maxApplyGroups });
    lease.timing.mark('execute');
    const signs = await signposts(c.get('base'), resource.name, citedFilter(query), query, lease);
    switch (result.kind) {
      case 'count': {
        const link = linkHeader(undefined, query);
        return c.body(JSON.stringify({ value: result.count }), 200, { 'Content-Type': JSON_TYPE, ...(link ? { Link: link } : {}) });
      }
      case 'apply':
        return applyPage(c, query, result, deps, signs);
      case 'page':
        return await page(c, query, result, lease, deps, signs);
    }
  };
}

async function page(c: Context, query: Query, result: PageResult, lease: Lease, deps: HandlerDeps, signs: Signposts): Promise<Response> {
  const { plan, ids, hasNext, rows, total } = result;
  checkPageSize(plan.resource.table, plan.fields, ids.length, lease.snapshot.columnWidths, deps.limits?.maxPageBytes);
  const base = c.get('base');
  const next = hasNext ? nextLink(base, plan, query, ids[ids.length - 1]!, lease.publication) : undefined;

  const headers: Record<string, string> = { 'Content-Type': FORMATS[plan.format].contentType };
  const link = linkHeader(next, query, signs);
  if (link) headers['Link'] = link;
  const held: PageRows = rows.kind === 'text' ? { kind: 'text', chunks: lease.hold(rows.chunks) } : { kind: 'columns', chunks: lease.hold(rows.chunks) };
  const body = await PAGE_WRITERS[plan.format](held, { fields: plan.fields, context: contextUrl(base, plan), next, count: ids.length, total });
  // The writer returns once the first rows are rendered: headers go out with them.
  lease.timing.mark('first-byte');
  servesRows(c, ids.length);
  return c.body(body, 200, headers);
}

/** The groups of a page are at most `$top`, in memory; their JSON is sized, then streamed as JSON or CSV. */
function applyPage(c: Context, query: Query, result: ApplyResult, deps: HandlerDeps, signs: Signposts): Response {
  const { plan } = result;
  const format = applyFormat(query);
  const base = c.get('base');
  const next = result.hasNext ? nextApplyLink(base, plan, query, c.get('lease').publication) : undefined;
  const keys = plan.groupBy.map((d) => d.name);
  const aliases = plan.aggregates.map((a) => a.alias);
  const context = `${base}${PATHS.odata}/$metadata#${plan.resource.name}(${[...keys, ...aliases].join(',')})`;
  const frame = {
    keys,
    aliases,
    prefix: `{"@odata.context":${JSON.stringify(context)},"value":[`,
    suffix: next ? `],"@odata.nextLink":${JSON.stringify(next)}}` : ']}',
  };
  checkApplySize(applyBytes(result.groups, frame), result.groups.length, deps.limits?.maxPageBytes);
  servesRows(c, result.groups.length);
  chargesRows(c, applyCost({ rowsRead: result.rowsRead, groups: result.groups.length }, deps.limits?.applyRowsReadPerRow));
  const link = linkHeader(next, query, signs);
  const body = format === 'csv' ? applyStream(result.groups, applyCsvFrame(keys, aliases), 'csv') : applyStream(result.groups, frame);
  return c.body(body, 200, { 'Content-Type': FORMATS[format].contentType, ...(link ? { Link: link } : {}) });
}

/** JSON or CSV; Arrow's stream has no form for groups, so asking for it is a 400 rather than JSON in its place. */
function applyFormat(query: Query): ApplyFormat {
  const format = query.format ?? 'json';
  switch (format) {
    case 'json':
    case 'csv':
      return format;
    case 'arrow':
    case 'geojson':
      throw new ApiError('invalid_parameter', '$apply answers JSON or CSV ($format=json or csv, or Accept: application/json or text/csv); Arrow is offered for pages of rows.', { parameter: '$format' });
    default:
      return assertNever(format);
  }
}

/**
 * GET /v1/odata/v4/{Metadata|Locations|Observations|Records}: one request, one pass through the stages
 * (parse → plan → execute → respond), each handing one typed value to the next.
 */
import type { Context } from 'hono';
import { getResource, type ResourceDef } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { ODataError, parseQuery } from '../odata/index.js';
import type { Query } from '../odata/ast.js';
import { execute, type ApplyResult, type PageResult, type PageRows } from '../exec/execute.js';
import { FORMATS, formatFromAccept } from '../formats.js';
import { planQuery, type Plan } from '../query/plan.js';
import { PlanError } from '../query/plan-error.js';
import type { Snapshot } from '../db/snapshot.js';
import { checkPageSize } from '../limits/page-size.js';
import { queryDeadline } from '../limits/query-deadline.js';
import { PAGE_WRITERS } from '../stream/page-writers.js';
import { matchesIfNoneMatch, publicationETag } from './publication-etag.js';
import { stageTimer, type StageTimer } from './server-timing.js';
import { baseUrl, BASE_PATH, contextUrl, linkHeader, nextApplyLink, nextLink, type BaseUrlOptions } from './links.js';

export interface CollectionDeps {
  /** The snapshot to serve this request from; released when the response is done. */
  readonly acquire: () => { snapshot: Snapshot; release: () => void; readonly publication?: string };
  readonly links: BaseUrlOptions;
  /** QUERY_TIMEOUT_MS and MAX_PAGE_BYTES; each unlimited when left out. */
  readonly limits?: { readonly queryTimeoutMs?: number; readonly maxPageBytes?: number };
  /** Operational notes: a faster path that failed and was replaced (the client still got its page). */
  readonly log?: (msg: string) => void;
}

export const JSON_TYPE = FORMATS.json.contentType;

/** The raw query string as the client sent it: Node gives the undecoded request target. */
export function rawQueryString(c: Context): string {
  const target: string = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? c.req.url;
  const q = target.indexOf('?');
  return q < 0 ? '' : target.slice(q + 1);
}

export function parseRequestQuery(c: Context): Query {
  try {
    return parseQuery(rawQueryString(c));
  } catch (err) {
    if (err instanceof ODataError) throw ApiError.from(err);
    throw err;
  }
}

/** Planning's errors, answered as every other 400: code, message and the offending parameter. */
function planRequest(query: Query, resource: ResourceDef): Plan {
  try {
    return planQuery(query, resource);
  } catch (err) {
    if (err instanceof PlanError) throw ApiError.from(err);
    throw err;
  }
}

export function collectionHandler(deps: CollectionDeps) {
  return async function collection(c: Context): Promise<Response> {
    const timing = stageTimer();
    const resource = getResource(c.req.param('resource') ?? '');
    if (!resource) throw notFound(c.req.path);
    const parsed = parseRequestQuery(c);
    timing.mark('parse');
    // An Accept header asks for a format as $format does; anything else is JSON, never a 406.
    const accepted = parsed.format ?? formatFromAccept(c.req.header('accept'));
    const query: Query = accepted && !parsed.format ? { ...parsed, format: accepted } : parsed;
    const plan = planRequest(query, resource);
    timing.mark('plan');
    const { snapshot, release, publication } = deps.acquire();
    if (publication) {
      const etag = publicationETag(publication);
      // Set before the body: c.body merges its headers with these.
      c.header('ETag', etag);
      if (matchesIfNoneMatch(c.req.header('if-none-match'), etag)) {
        release();
        return c.body(null, 304);
      }
    }
    // Aborted on disconnect, and on timeout until the first row (the handler returns once it is there).
    const deadline = queryDeadline(c.req.raw.signal, deps.limits?.queryTimeoutMs);
    const signal = deadline.signal;
    try {
      const result = await execute(plan, snapshot, signal, { log: deps.log });
      timing.mark('execute');
      // Set before the body: c.body merges its headers with these. A page adds its first byte's stage below.
      if (result.kind !== 'page') c.header('Server-Timing', timing.header());
      switch (result.kind) {
        case 'count': {
          release();
          const link = linkHeader(undefined, query);
          return c.body(JSON.stringify({ value: result.count }), 200, { 'Content-Type': JSON_TYPE, ...(link ? { Link: link } : {}) });
        }
        case 'apply':
          release();
          return applyPage(c, query, result, deps);
        case 'page':
          return await page(c, query, result, snapshot, deps, release, timing);
      }
    } catch (err) {
      release();
      throw deadline.explain(err);
    } finally {
      deadline.stop();
    }
  };
}

async function page(
  c: Context,
  query: Query,
  result: PageResult,
  snapshot: Snapshot,
  deps: CollectionDeps,
  release: () => void,
  timing: StageTimer,
): Promise<Response> {
  const { plan, ids, hasNext, rows, total } = result;
  checkPageSize(plan.resource.table, plan.fields, ids.length, snapshot.columnWidths, deps.limits?.maxPageBytes);
  const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
  const next = hasNext ? nextLink(base, plan, query, ids[ids.length - 1]!) : undefined;

  const headers: Record<string, string> = { 'Content-Type': FORMATS[plan.format].contentType };
  const link = linkHeader(next, query);
  if (link) headers['Link'] = link;
  const released: PageRows =
    rows.kind === 'text' ? { kind: 'text', chunks: withRelease(rows.chunks, release) } : { kind: 'columns', chunks: withRelease(rows.chunks, release) };
  const body = await PAGE_WRITERS[plan.format](released, { fields: plan.fields, context: contextUrl(base, plan), next, count: ids.length, total });
  // The writer returns once the first rows are rendered: headers go out with them.
  timing.mark('first-byte');
  headers['Server-Timing'] = timing.header();
  return c.body(body, 200, headers);
}

/** Aggregates are small (the statistics table is): built in JS, sent whole. */
function applyPage(c: Context, query: Query, result: ApplyResult, deps: CollectionDeps): Response {
  const { plan } = result;
  const value = result.groups.map(({ keys, count }) => {
    const out: Record<string, unknown> = {};
    plan.groupBy.forEach((dim, i) => {
      const v = keys[i];
      out[dim.name] = typeof v === 'bigint' ? Number(v) : (v ?? null);
    });
    out[plan.countAlias] = count;
    return out;
  });
  const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
  const next = result.hasNext ? nextApplyLink(base, plan, query) : undefined;
  const body = {
    '@odata.context': `${base}${BASE_PATH}/$metadata#${plan.resource.name}(${[...plan.groupBy.map((d) => d.name), plan.countAlias].join(',')})`,
    value,
    ...(next ? { '@odata.nextLink': next } : {}),
  };
  const link = linkHeader(next, query);
  return c.body(JSON.stringify(body), 200, { 'Content-Type': JSON_TYPE, ...(link ? { Link: link } : {}) });
}

async function* withRelease<T, R>(source: AsyncGenerator<T, R>, release: () => void): AsyncGenerator<T, R> {
  try {
    return yield* source;
  } finally {
    release();
  }
}

export function notFound(path: string): ApiError {
  return new ApiError(
    'not_found',
    `No resource at ${path}. Resources: /v1/odata/v4/Metadata, /Locations, /Observations, /Records.`,
  );
}

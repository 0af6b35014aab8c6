/**
 * GET /v1/odata/v4/{Metadata|Locations|Observations|Records}: one request, one pass through the stages
 * (parse → plan → compile → stream), each handing one typed value to the next.
 */
import type { Context } from 'hono';
import { getResource } from '../../../schemas/index.js';
import { ApiError } from '../errors.js';
import { ODataError, parseQuery } from '../odata/index.js';
import type { Query } from '../odata/ast.js';
import { compileApply, compileCount, csvHeader } from '../query/compile.js';
import { findPage } from './page-window.js';
import { pageText } from './page-text.js';
import { planQuery, type ApplyPlan, type PagePlan } from '../query/plan.js';
import type { ColumnChunk, Snapshot } from '../db/snapshot.js';
import { checkPageSize } from '../limits/page-size.js';
import { queryDeadline } from '../limits/query-deadline.js';
import { pageStream, textPageStream, type TextFrame } from '../stream/page-stream.js';
import { ARROW_TYPE, arrowFrame } from '../stream/arrow-frame.js';
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

export const JSON_TYPE = 'application/json; charset=utf-8';
const CONTENT_TYPES = { json: JSON_TYPE, csv: 'text/csv; charset=utf-8', arrow: ARROW_TYPE } as const;

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

export function collectionHandler(deps: CollectionDeps) {
  return async function collection(c: Context): Promise<Response> {
    const resource = getResource(c.req.param('resource') ?? '');
    if (!resource) throw notFound(c.req.path);
    const parsed = parseRequestQuery(c);
    const accepted = parsed.format ?? formatFromAccept(c.req.header('accept'));
    const query: Query = accepted && !parsed.format ? { ...parsed, format: accepted } : parsed;
    const plan = planQuery(query, resource);
    const { snapshot, release } = deps.acquire();
    // Aborted on disconnect, and on timeout until the first row (the handler returns once it is there).
    const deadline = queryDeadline(c.req.raw.signal, deps.limits?.queryTimeoutMs);
    const signal = deadline.signal;
    try {
      if (plan.kind === 'count') {
        const cols = await snapshot.columns(compileCount(plan), signal);
        release();
        const link = linkHeader(undefined, query);
        return c.body(JSON.stringify({ value: Number(cols['n']?.[0] ?? 0) }), 200, { 'Content-Type': JSON_TYPE, ...(link ? { Link: link } : {}) });
      }
      if (plan.kind === 'apply') {
        const response = await applyPage(c, plan, query, snapshot, signal, deps);
        release();
        return response;
      }
      return await page(c, plan, query, snapshot, signal, deps, release);
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
  plan: PagePlan,
  query: Query,
  snapshot: Snapshot,
  signal: AbortSignal,
  deps: CollectionDeps,
  release: () => void,
): Promise<Response> {
  const found = await findPage(snapshot, plan, signal);
  const ids = found.ids;
  const hasNext = ids.length > plan.top;
  const pageIds = hasNext ? ids.slice(0, plan.top) : ids;
  checkPageSize(plan.resource.table, plan.fields, pageIds.length, snapshot.columnWidths, deps.limits?.maxPageBytes);
  const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
  const next = hasNext ? nextLink(base, plan, query, pageIds[pageIds.length - 1]!) : undefined;

  const headers: Record<string, string> = { 'Content-Type': CONTENT_TYPES[plan.format] };
  const link = linkHeader(next, query);
  if (link) headers['Link'] = link;
  const count = { count: pageIds.length };

  let body: ReadableStream<Uint8Array>;
  if (plan.format === 'arrow') {
    const chunks = pageIds.length ? snapshot.streamColumns(found.rows('arrow', pageIds.length), signal) : nothing<ColumnChunk>();
    body = await pageStream(withRelease(chunks, release), arrowFrame(plan.fields), count);
  } else {
    const csv = plan.format === 'csv';
    const frame = csv ? csvFrame(plan) : jsonFrame(contextUrl(base, plan), next);
    const text = pageText(snapshot, { ...plan, format: plan.format }, found, pageIds, hasNext, signal, deps.log);
    body = await textPageStream(withRelease(text, release), frame, count);
  }
  return c.body(body, 200, headers);
}

/** `Accept: text/csv` or the Arrow stream type asks for that format like $format does; anything else is JSON, never a 406. */
function formatFromAccept(accept: string | undefined): 'csv' | 'arrow' | undefined {
  if (!accept) return undefined;
  if (/\btext\/csv\b/i.test(accept)) return 'csv';
  if (accept.toLowerCase().includes(ARROW_TYPE)) return 'arrow';
  return undefined;
}

async function* nothing<T>(): AsyncGenerator<T> {}

/** Aggregates are small (the statistics table is): built in JS, sent whole. */
async function applyPage(c: Context, plan: ApplyPlan, query: Query, snapshot: Snapshot, signal: AbortSignal, deps: CollectionDeps): Promise<Response> {
  const cols = await snapshot.columns(compileApply(plan), signal);
  const n = cols['n'] ?? [];
  const hasNext = n.length > plan.top;
  const count = Math.min(n.length, plan.top);
  const value = Array.from({ length: count }, (_, row) => {
    const out: Record<string, unknown> = {};
    plan.groupBy.forEach((dim, i) => {
      const v = cols[`g${i}`]![row];
      out[dim.name] = typeof v === 'bigint' ? Number(v) : (v ?? null);
    });
    out[plan.countAlias] = Number(n[row]);
    return out;
  });
  const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
  const next = hasNext ? nextApplyLink(base, plan, query) : undefined;
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

/** COPY ends every row with a comma: the frame drops the last one. */
function jsonFrame(context: string, next: string | undefined): TextFrame {
  const suffix = next ? `],"@odata.nextLink":${JSON.stringify(next)}}` : ']}';
  return { prefix: `{"@odata.context":${JSON.stringify(context)},"value":[`, suffix, trailer: ',' };
}

/** RFC 4180: a header line, then one CRLF-terminated line per row. */
function csvFrame(plan: PagePlan): TextFrame {
  return { prefix: `${csvHeader(plan.fields)}\r\n`, suffix: '', trailer: '' };
}

export function notFound(path: string): ApiError {
  return new ApiError(
    'not_found',
    `No resource at ${path}. Resources: /v1/odata/v4/Metadata, /Locations, /Observations, /Records.`,
  );
}

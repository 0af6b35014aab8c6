/**
 * The data API as a Hono app, built from its dependencies so tests can run it with `app.request()` or on a
 * real socket. Only main.ts opens files and ports.
 */
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError, errorBody, featuresErrorBody } from './errors.js';
import { accessPolicy, type AccessOptions } from './middleware/access.js';
import { bodyFirst, DEFAULT_BODY_MIN_BYTES_PER_SECOND, DEFAULT_BODY_TIMEOUT_MS } from './middleware/body-first.js';
import { compress } from './middleware/compress.js';
import { cutOnError } from './middleware/cut-on-error.js';
import { observe, type ObserveOptions } from './middleware/observe.js';
import { requestId, requestIdOf } from './middleware/request-id.js';
import { securityHeaders } from './middleware/security-headers.js';
import { JSON_TYPE } from './formats.js';
import type { HandlerDeps } from './http/handler-deps.js';
import type { Acquired } from './http/lease.js';
import { mounter } from './http/mount.js';
import { DEFAULT_MAX_BODY_BYTES } from './http/request-body.js';
import { notFound } from './http/not-found.js';
import { nearestRoute, ROUTE_TABLE, type RouteRow } from './http/route-table.js';
import { citationHandler } from './routes/citation.js';
import { bodyQuery, collectionHandler } from './routes/collection.js';
import { countHandler } from './routes/count.js';
import { searchHandler } from './routes/search.js';
import { registerDiscovery } from './routes/discovery.js';
import { registerExplore, type ExploreOptions } from './routes/explore.js';
import { registerDownloads } from './downloads/downloads.js';
import { exportHandler } from './routes/export.js';
import { registerFeatures } from './ogc/register-features.js';
import { registerPages, type PagesDeps } from './pages/register-pages.js';
import { regionSource } from './ogc/regions-collection.js';
import { mcpHandler } from './mcp/mcp-handler.js';
import { llmsBody, llmsTemplates, type LlmsFacts } from './mcp/llms-txt.js';
import { requestBase } from './http/request-base.js';
import { explainOutOfMemory } from './limits/out-of-memory.js';

export interface AppDeps extends HandlerDeps {
  /** The snapshot a request is served from (db/database.ts); taken and released by the lease alone (http/lease.ts). */
  readonly acquire: (publication?: string) => Acquired | Promise<Acquired>;
  /** PUBLICATION_RETENTION_MS, named by the 410 of a publication past it. */
  readonly retentionMs?: number;
  /** QUERY_TIMEOUT_MS, MAX_PAGE_BYTES, MAX_APPLY_GROUPS and STREAM_STALL_MS; each unlimited when left out. */
  readonly limits?: {
    readonly queryTimeoutMs?: number | undefined;
    readonly maxPageBytes?: number | undefined;
    /** MAX_APPLY_GROUPS (exec/apply-estimate.ts) and APPLY_ROWS_READ_PER_ROW (limits/apply-cost.ts). */
    readonly maxApplyGroups?: number | undefined;
    readonly applyRowsReadPerRow?: number | undefined;
    readonly streamStallMs?: number | undefined;
    /** PAGE_STALL_MS: STREAM_STALL_MS for pages, when shorter (middleware/cut-on-error.ts). */
    readonly pageStallMs?: number | undefined;
    readonly maxBodyBytes?: number | undefined;
    /** BODY_TIMEOUT_MS and BODY_MIN_BYTES_PER_SECOND (middleware/body-first.ts). */
    readonly bodyTimeoutMs?: number | undefined;
    readonly bodyMinBytesPerSecond?: number | undefined;
  };
  /** Reports unexpected errors (never user input problems); defaults to stderr. */
  readonly logError?: (err: unknown) => void;
  /** Keys, CORS and rate limits (middleware/access.ts); left out, the API is open and unlimited (tests). */
  readonly access?: AccessOptions;
  /** True once the process is draining: /readyz then answers 503 so the load balancer stops routing to it. */
  readonly draining?: () => boolean;
  /** Runs before the snapshot of a request that continues a next link is taken (publication/follow-current.ts). */
  readonly beforeNextLink?: () => Promise<void>;
  /** EXPORT_TIMEOUT_MS for whole-result exports (routes/export.ts); unlimited when left out. */
  readonly exportTimeoutMs?: number;
  /** Where the dataset files are (downloads/downloads.ts); by default `<published file>.files`. */
  readonly filesDir?: string;
  /** The explorer page at /explore (routes/explore.ts); left out, there is none. */
  readonly explore?: ExploreOptions;
  /** The landing pages' and catalogues' options (pages/register-pages.ts); tests shorten the sitemap files. */
  readonly pages?: Omit<PagesDeps, 'links'>;
  /** Metrics and the access log (middleware/observe.ts); left out, neither. */
  readonly observe?: ObserveOptions;
  /** REGIONS_FILE: the regions the `regions` collection lists (ogc/regions-collection.ts); none when left out. */
  readonly regionsFile?: string;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const logError = deps.logError ?? ((err: unknown) => console.error(err));

  app.use('*', requestId({ trustProxy: deps.links.trustProxy }));
  app.use('*', requestBase(deps.links));
  // Around the cut below: it counts the bytes the socket was handed and sees a body cut as cut.
  app.use('*', observe(deps.observe));
  // Outermost: it must wrap the body as finally sent (compressed or not), and a stall is the socket's.
  app.use('*', cutOnError({ stallMs: deps.limits?.streamStallMs, pageStallMs: deps.limits?.pageStallMs }));
  app.use('*', securityHeaders());
  app.use('*', async (c, next) => {
    await next();
    c.header('OData-Version', '4.0');
  });
  app.use('*', compress());
  const access = accessPolicy(deps.access);
  for (const m of access.everyRequest) app.use('*', m);

  // Every route is a row of http/route-table.ts, mounted here or by the register functions this hands `mount` to;
  // the row decides its key rule, body, budget, cache, lease, methods (405 and OPTIONS) and error body.
  // A POSTed query's body is read whole, within its limits, before any limit of its row takes a slot or place for it.
  const body = bodyFirst({
    maxBytes: deps.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    timeoutMs: deps.limits?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    minBytesPerSecond: deps.limits?.bodyMinBytesPerSecond ?? DEFAULT_BODY_MIN_BYTES_PER_SECOND,
  });
  const mount = mounter(app, {
    cors: access.cors, key: access.key, body, access: access.forRoute,
    acquire: deps.acquire, retentionMs: deps.retentionMs, queryTimeoutMs: deps.limits?.queryTimeoutMs, exportTimeoutMs: deps.exportTimeoutMs, beforeNextLink: deps.beforeNextLink,
  });

  mount('healthz', (c) => c.json({ status: 'ok' }));
  mount('readyz', async (c) => {
    if (deps.draining?.()) throw new ApiError('unavailable', 'Shutting down: this instance takes no new requests.', {}, { 'Retry-After': '1' });
    const { snapshot, publication } = c.get('lease');
    await snapshot.columns({ sql: 'SELECT 1 AS ok', params: [] });
    return c.json({ status: 'ready', database: snapshot.path, ...(publication ? { publication } : {}) });
  });

  if (deps.explore) registerExplore(mount, { keysRequired: () => deps.access?.keys?.required === true, ...deps.explore });
  registerDiscovery(mount); // before the collection route, which would take `$metadata` for a resource
  mount('collectionQuery', collectionHandler(deps, bodyQuery));
  mount('count', countHandler(deps));
  mount('collection', collectionHandler(deps));
  mount('export', exportHandler(deps));
  mount('citation', citationHandler(deps));
  mount('datasetSearch', searchHandler());
  registerDownloads(mount, { filesDir: deps.filesDir });
  registerFeatures(mount, deps, regionSource(deps.regionsFile));
  registerPages(mount, { links: deps.links, ...deps.pages });
  // Each tool call is this app's own request (mcp/api-caller.ts), so it passes every middleware above again.
  mount('mcp', mcpHandler({ fetch: (request, env) => app.fetch(request, env), links: deps.links, maxBodyBytes: deps.limits?.maxBodyBytes }));
  const facts: LlmsFacts = { keysRequired: deps.access?.keys?.required === true, rateLimit: deps.access?.rateLimit, discoveryRateLimit: deps.access?.discoveryRateLimit, fileBytes: deps.access?.fileBytes, retentionMs: deps.retentionMs, maxPageBytes: deps.limits?.maxPageBytes, maxApplyGroups: deps.limits?.maxApplyGroups, queryTimeoutMs: deps.limits?.queryTimeoutMs };
  const llms = llmsTemplates(facts);
  for (const route of ['llmsTxt', 'llmsFullTxt'] as const) {
    mount(route, (c) => c.body(llmsBody(llms[route](), c.get('base')), 200, { 'Content-Type': 'text/plain; charset=utf-8' }));
  }

  // The error body of the row a request was matched to (or, for a path no row answers, of the row nearest it).
  const errorText = (c: Context, e: ApiError) => JSON.stringify(errorFormat(c) === 'features' ? featuresErrorBody(e, requestIdOf(c)) : errorBody(e, requestIdOf(c)));
  app.notFound((c) => {
    const err = notFound(c.req.path, errorFormat(c));
    return c.body(errorText(c, err), 404, { 'Content-Type': JSON_TYPE });
  });
  app.onError((thrown, c) => {
    // A query its route's deadline stopped is the lease's 504, one past the memory bound a 503: not faults of ours.
    const err = explainOutOfMemory(c.get('lease')?.explain(thrown) ?? thrown);
    const apiError =
      err instanceof ApiError
        ? err
        : err instanceof HTTPException
          ? new ApiError(err.status === 413 ? 'payload_too_large' : 'invalid_value', err.message)
          : undefined;
    // A query interrupted because its client went away is not a fault of ours: nobody is there to answer.
    if (!apiError && !c.req.raw.signal.aborted) logError(err);
    const e = apiError ?? new ApiError('internal', 'Internal error: the request could not be answered. Retry once; if it persists, report it with the time of the request.');
    return c.body(errorText(c, e), e.status as 400, { 'Content-Type': JSON_TYPE, ...e.headers });
  });
  return app;
}

/** The error body's shape: the matched row's, else the row of the path's nearest ancestor that has one. */
function errorFormat(c: Context): RouteRow['errors'] {
  const route = c.get('route') ?? nearestRoute(c.req.path);
  return route ? ROUTE_TABLE[route].errors : 'api';
}

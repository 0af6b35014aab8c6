/**
 * The data API as a Hono app, built from its dependencies so tests can run it with `app.request()` or on a
 * real socket. Only main.ts opens files and ports.
 */
import { Hono, type Context, type Handler } from 'hono';
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
import { mounter, type Mount } from './http/mount.js';
import { DEFAULT_MAX_BODY_BYTES } from './http/request-body.js';
import { notFound } from './http/not-found.js';
import { PATHS } from './http/paths.js';
import { ROUTE_TABLE, type RouteName } from './http/route-table.js';
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
import { baseUrl } from './http/links.js';

export interface AppDeps extends HandlerDeps {
  /** The snapshot a request is served from (db/database.ts); taken and released by the lease alone (http/lease.ts). */
  readonly acquire: (publication?: string) => Acquired | Promise<Acquired>;
  /** PUBLICATION_RETENTION_MS, named by the 410 of a publication past it. */
  readonly retentionMs?: number;
  /** QUERY_TIMEOUT_MS, MAX_PAGE_BYTES and STREAM_STALL_MS; each unlimited when left out. */
  readonly limits?: {
    readonly queryTimeoutMs?: number | undefined;
    readonly maxPageBytes?: number | undefined;
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

const ALLOW = 'GET, HEAD, OPTIONS';
/** Keys, CORS and budgets cover every path under it (middleware/access.ts). */
const API_DOOR = '/v1/*';

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const logError = deps.logError ?? ((err: unknown) => console.error(err));

  app.use('*', requestId({ trustProxy: deps.links.trustProxy }));
  // Around the cut below: it counts the bytes the socket was handed and sees a body cut as cut.
  app.use('*', observe(deps.observe));
  // Outermost: it must wrap the body as finally sent (compressed or not), and a stall is the socket's.
  app.use('*', cutOnError({ stallMs: deps.limits?.streamStallMs, pageStallMs: deps.limits?.pageStallMs }));
  app.use('*', securityHeaders({ noStore: [PATHS.healthz, PATHS.readyz] }));
  app.use('*', async (c, next) => {
    await next();
    c.header('OData-Version', '4.0');
  });
  app.use('*', compress());
  // A POSTed query's body is read whole, within its limits, before any limit below takes a slot or place for it.
  const body = bodyFirst({
    maxBytes: deps.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    timeoutMs: deps.limits?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    minBytesPerSecond: deps.limits?.bodyMinBytesPerSecond ?? DEFAULT_BODY_MIN_BYTES_PER_SECOND,
  });
  app.use(ROUTE_TABLE.collectionQuery.path, body);
  app.use(ROUTE_TABLE.items.path, body);
  const access = accessPolicy(deps.access);
  for (const m of access.everyRequest) app.use('*', m);
  // The MCP door is keyed as /v1 is: its tool calls are /v1 requests, checked again.
  for (const door of [API_DOOR, ROUTE_TABLE.mcp.path]) for (const m of access.apiDoor) app.use(door, m);

  // Every route is a row of http/route-table.ts, mounted here or by the register functions this hands `mount` to.
  const mount = mounter(app, { access: access.forRoute, acquire: deps.acquire, retentionMs: deps.retentionMs, queryTimeoutMs: deps.limits?.queryTimeoutMs, exportTimeoutMs: deps.exportTimeoutMs, beforeNextLink: deps.beforeNextLink });

  mount('healthz', (c) => c.json({ status: 'ok' }));
  mount('readyz', async (c) => {
    if (deps.draining?.()) throw new ApiError('unavailable', 'Shutting down: this instance takes no new requests.', {}, { 'Retry-After': '1' });
    const { snapshot, publication } = c.get('lease');
    await snapshot.columns({ sql: 'SELECT 1 AS ok', params: [] });
    return c.json({ status: 'ready', database: snapshot.path, ...(publication ? { publication } : {}) });
  });

  if (deps.explore) registerExplore(mount, { keysRequired: () => deps.access?.keys?.required === true, ...deps.explore });
  registerDiscovery(mount, deps); // before the collection route, which would take `$metadata` for a resource
  mount('collectionQuery', collectionHandler(deps, bodyQuery));
  app.all(ROUTE_TABLE.collectionQuery.path, (c) => {
    if (c.req.method === 'OPTIONS') return c.body(null, 204, { Allow: 'POST, OPTIONS' });
    throw new ApiError('method_not_allowed', `${c.req.method} is not allowed here: POST the query options as text/plain ($filter=…&$top=…), or GET ${PATHS.odata}/{resource}?… for a query that fits in a URL.`, {}, { Allow: 'POST, OPTIONS' });
  });
  readOnly(app, mount, 'count', countHandler(deps), 'a count is read-only. Use GET.');
  readOnly(app, mount, 'collection', collectionHandler(deps), 'this API is read-only. Use GET.');
  readOnly(app, mount, 'export', exportHandler(deps), 'exports are read-only. Use GET (or HEAD for the row count alone).');
  readOnly(app, mount, 'citation', citationHandler(deps), 'citations are read-only. Use GET.');
  readOnly(app, mount, 'datasetSearch', searchHandler(), 'a search is read-only. Use GET.');
  registerDownloads(app, mount, { links: deps.links, filesDir: deps.filesDir });
  registerFeatures(app, mount, deps, regionSource(deps.regionsFile));
  registerPages(mount, { links: deps.links, ...deps.pages });
  // Each tool call is this app's own request (mcp/api-caller.ts), so it passes every middleware above again.
  mount('mcp', mcpHandler({ fetch: (request, env) => app.fetch(request, env), links: deps.links, maxBodyBytes: deps.limits?.maxBodyBytes }));
  app.options(PATHS.mcp, (c) => c.body(null, 204, { Allow: 'POST, OPTIONS' }));
  app.all(PATHS.mcp, (c) => {
    throw new ApiError('method_not_allowed', `${c.req.method} is not allowed: this MCP server is stateless (no SSE stream to GET, no session to DELETE). POST JSON-RPC messages to ${PATHS.mcp}.`, {}, { Allow: 'POST, OPTIONS' });
  });
  const facts: LlmsFacts = { keysRequired: deps.access?.keys?.required === true, rateLimit: deps.access?.rateLimit, discoveryRateLimit: deps.access?.discoveryRateLimit, fileBytes: deps.access?.fileBytes, retentionMs: deps.retentionMs, maxPageBytes: deps.limits?.maxPageBytes, queryTimeoutMs: deps.limits?.queryTimeoutMs };
  const llms = llmsTemplates(facts);
  for (const route of ['llmsTxt', 'llmsFullTxt'] as const) {
    mount(route, (c) => c.body(llmsBody(llms[route](), baseUrl(c.req.url, c.req.raw.headers, deps.links)), 200, { 'Content-Type': 'text/plain; charset=utf-8' }));
  }

  // Under /v1/features errors carry OGC's exception members (code, description) besides the API's own.
  const errorText = (c: Context, e: ApiError) => JSON.stringify(isFeatures(c.req.path) ? featuresErrorBody(e, requestIdOf(c)) : errorBody(e, requestIdOf(c)));
  app.notFound((c) => {
    const err = notFound(c.req.path);
    return c.body(errorText(c, err), 404, { 'Content-Type': JSON_TYPE });
  });
  app.onError((thrown, c) => {
    // A query its route's deadline stopped is the lease's 504, not a fault of ours.
    const err = c.get('lease')?.explain(thrown) ?? thrown;
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

/** The row's GET (and HEAD); OPTIONS names them; any other method is a 405. */
function readOnly(app: Hono, mount: Mount, route: RouteName, handler: Handler, refusal: string): void {
  const { path } = ROUTE_TABLE[route];
  mount(route, handler);
  app.options(path, (c) => c.body(null, 204, { Allow: ALLOW }));
  app.all(path, (c) => {
    throw new ApiError('method_not_allowed', `${c.req.method} is not allowed: ${refusal}`, {}, { Allow: ALLOW });
  });
}

function isFeatures(path: string): boolean {
  return path === PATHS.features || path.startsWith(`${PATHS.features}/`);
}

/**
 * Who may call the API and how much: the middleware chain in its one order, built from one options object.
 *
 *   urlLength (414) → headWithoutBody → cors (preflight, allowed origin) → apiKey (401/403) → keyOnly (401,
 *   exports and dataset files) → the budget of what the request costs (request-cost.ts; 429, or held back up to
 *   `maxWaitMs`) → concurrencyPerClient (429, pages) → file places (429, dataset files) → exportsPerClient (429,
 *   exports and whole files) → queryGate (429 beyond a client's share, 503, data requests only)
 *
 * Each kind of request draws from a budget of its own, per client:
 *
 * - pages (everything that runs a query: pages, counts, aggregates, OGC items, exports): `rateLimit`, the
 *   DataStream contract (2 requests/s), and `maxConcurrentPerKey` places;
 * - discovery documents (landing pages, conformance, collections, `$metadata`, OpenAPI, queryables, the downloads
 *   index, manifest and feed): `discoveryRateLimit`, generous, and no place: a client's first steps never wait on its
 *   pages' budget;
 * - dataset files: `fileBytes` (bytes per second, file-bytes.ts) and `maxConcurrentFileReads` places, fit for
 *   engines that read ranges in parallel; a whole file (GET without Range) is also an export's place.
 *
 * While keys are required, a browser call without one (a listed `Origin`, or a same-origin request to a listed
 * host) is let in because browser pages cannot keep a secret, not because it proved anything: any script can send
 * those headers. So it gets what an anonymous client may have: a budget of its own per address, smaller than a
 * key's (`browserRateLimit`), and no whole-result export or dataset file, the transfers that hold a slot or
 * gigabytes for a long time. Those are what a key, issued to someone and revocable, is for.
 *
 * An export (`/v1/export/…`) is one request to the rate limit however long it streams; it holds a place of
 * MAX_CONCURRENT_PER_KEY, one of MAX_CONCURRENT_EXPORTS and a query slot until its last byte is sent.
 *
 * Keys and limits cover everything under /v1 (collections, service document, `$metadata`, OpenAPI) and the MCP
 * door `/mcp` (a discovery request; each tool call's reads are /v1 requests, checked and costed again); the docs
 * page `/`, the explorer page and its assets, and the health checks stay open for people and load balancers. Every
 * option left out is off: tests of other behaviours build the app with none, main.ts always passes the configured
 * policy (access-options.ts).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { getResource } from '../../../schemas/index.js';
import type { KeyStore } from '../keys/key-store.js';
import type { QueryGate } from '../limits/query-gate.js';
import { DATA_ROUTES, PATHS } from '../http/paths.js';
import { apiClient, apiKey, keyOnly } from './api-key.js';
import { concurrencyPerClient, headWithoutBody, queryGate, type ClientSlots } from './concurrency.js';
import { cors } from './cors.js';
import { fileBytes } from './file-bytes.js';
import { rateLimit, type Decision } from './rate-limit.js';
import { REGIONS_COLLECTION } from '../ogc/regions-collection.js';
import { requestCost, type RequestCost } from './request-cost.js';
import { urlLength } from './url-length.js';

export interface AccessOptions {
  /** Undefined: no key is asked for (clients are counted by address). */
  readonly keys?: KeyStore;
  readonly corsOrigins?: readonly string[];
  /** The pages' budget (requests that run a query). */
  readonly rateLimit?: { readonly rps: number; readonly burst: number; readonly now?: () => number };
  /** The budget of each address's keyless browser calls while keys are required; default `rateLimit`'s. */
  readonly browserRateLimit?: { readonly rps: number; readonly burst: number };
  /** The discovery documents' budget (request-cost.ts); left out, they are not counted. */
  readonly discoveryRateLimit?: { readonly rps: number; readonly burst: number };
  /** Dataset files' bytes per client (file-bytes.ts); left out, they are not metered. */
  readonly fileBytes?: { readonly bytesPerSecond: number; readonly burst: number };
  /** How long a request over a budget may be held back until it fits, instead of refused (default 0). */
  readonly maxWaitMs?: number;
  /** Requests of pages (and exports) one client may have in flight. */
  readonly maxConcurrentPerKey?: number;
  /** Requests for dataset files one client may have in flight (engines read ranges in parallel). */
  readonly maxConcurrentFileReads?: number;
  /** Whole-result exports one client may run at once (counted where `shared.slots` counts, under its own names). */
  readonly maxConcurrentExports?: number;
  /**
   * Limits shared by every replica (shared/): the rate limit's buckets (`takeBrowser` at `browserRateLimit`) and the
   * places in flight, e.g. in Redis.
   */
  readonly shared?: {
    readonly take: SharedTake;
    readonly takeBrowser?: SharedTake;
    /** At `discoveryRateLimit`. */
    readonly takeDiscovery?: SharedTake;
    /** At `fileBytes`. */
    readonly takeBytes?: SharedTake;
    readonly slots: ClientSlots;
  };
  readonly queryGate?: QueryGate;
  /** Default 16 KiB. */
  readonly maxUrlBytes?: number;
  readonly trustProxy?: boolean | number;
  /** Operational messages (rejected key ids, never keys). */
  readonly log?: (msg: string) => void;
}

type SharedTake = (id: string, cost?: number) => Promise<Decision>;

export const DEFAULT_MAX_URL_BYTES = 16 * 1024;
const PROTECTED = '/v1/*';
/** Outside /v1 but keyed like it: the MCP door (its tool calls are /v1 requests of their own, checked again). */
const PROTECTED_OUTSIDE = [PATHS.mcp] as const;

export function registerAccess(app: Hono, opts: AccessOptions = {}, collectionPath = DATA_ROUTES.collection.path, exportPath = DATA_ROUTES.export.path, filesPath = `${PATHS.files}/*`): void {
  const trustProxy = opts.trustProxy ?? false;
  app.use('*', urlLength({ maxBytes: opts.maxUrlBytes ?? DEFAULT_MAX_URL_BYTES }));
  app.use('*', headWithoutBody());
  const protect = (handler: MiddlewareHandler) => {
    app.use(PROTECTED, handler);
    for (const path of PROTECTED_OUTSIDE) app.use(path, handler);
  };
  protect(cors({ origins: opts.corsOrigins ?? [], trustProxy }));
  protect(apiKey({ store: opts.keys, trustProxy, log: opts.log }));
  const bulk = keyOnly('Whole-result exports and dataset files');
  app.use(exportPath, bulk);
  app.use(filesPath, bulk);
  const cost = (c: Context): RequestCost => requestCost(c.req.path);
  const only = (kind: RequestCost, handler: MiddlewareHandler): MiddlewareHandler => (c, next) => (cost(c) === kind ? handler(c, next) : next());
  const maxWaitMs = opts.maxWaitMs ?? 0;
  if (opts.rateLimit) {
    const keyed = rateLimit({ ...opts.rateLimit, maxWaitMs, trustProxy, take: opts.shared?.take });
    // A shared bucket counts at the budget it was made with: the keys' one serves browsers only at the keys' budget.
    const browserTake = opts.shared?.takeBrowser ?? (opts.browserRateLimit ? undefined : opts.shared?.take);
    const browser = rateLimit({ ...opts.rateLimit, ...opts.browserRateLimit, maxWaitMs, per: 'per address for browser calls without a key', trustProxy, take: browserTake });
    protect(only('page', (c, next) => (apiClient(c, trustProxy).kind === 'browser' ? browser(c, next) : keyed(c, next))));
  }
  if (opts.discoveryRateLimit) {
    const what = 'discovery requests (landing pages, collections, $metadata, OpenAPI, the downloads index)';
    protect(only('discovery', rateLimit({ ...opts.discoveryRateLimit, maxWaitMs, what, trustProxy, take: opts.shared?.takeDiscovery })));
  }
  if (opts.fileBytes) app.use(filesPath, fileBytes({ ...opts.fileBytes, maxWaitMs, trustProxy, take: opts.shared?.takeBytes }));
  if (opts.maxConcurrentPerKey) protect(only('page', concurrencyPerClient({ max: opts.maxConcurrentPerKey, trustProxy, slots: opts.shared?.slots })));
  if (opts.maxConcurrentFileReads) app.use(filesPath, concurrencyPerClient({ max: opts.maxConcurrentFileReads, trustProxy, slots: opts.shared?.slots, scope: 'file' }));
  const reads = (c: Context) => (c.req.method === 'GET' || c.req.method === 'HEAD') && getResource(c.req.param('resource') ?? '') !== undefined;
  if (opts.maxConcurrentExports) {
    const exports = concurrencyPerClient({ max: opts.maxConcurrentExports, trustProxy, slots: opts.shared?.slots, scope: 'export' });
    app.use(exportPath, (c, next) => (reads(c) ? exports(c, next) : next()));
    // A whole dataset file of several GB is as long a transfer as an export, and counts as one; the range reads of
    // an engine do not (they are metered by their bytes).
    app.use(filesPath, (c, next) => (c.req.method === 'GET' && !c.req.header('range') ? exports(c, next) : next()));
  }
  if (opts.queryGate) {
    const gate = queryGate(opts.queryGate, trustProxy);
    // Only requests that run a DuckDB query wait for a slot; `$metadata` shares the route pattern.
    app.use(collectionPath, (c, next) => (reads(c) ? gate(c, next) : next()));
    app.use(exportPath, (c, next) => (reads(c) ? gate(c, next) : next()));
    // OGC API – Features' items run the same queries (services/api/ogc/); the regions' outlines run none.
    const queried: MiddlewareHandler = (c, next) => (c.req.param('collectionId') === REGIONS_COLLECTION ? next() : gate(c, next));
    app.use(DATA_ROUTES.items.path, queried);
    app.use(DATA_ROUTES.collectionQuery.path, (c, next) => (c.req.method === 'POST' ? gate(c, next) : next()));
    app.use(DATA_ROUTES.feature.path, queried);
    // A citation counts its rows per dataset as $apply does.
    app.use(DATA_ROUTES.citation.path, (c, next) => (reads(c) ? gate(c, next) : next()));
    // The landing pages and the harvesters' documents that query per request (routes/register-pages.ts): a crawler
    // waits for a slot as any client does.
    for (const route of ['datasetPage', 'locationPage', 'locationsDump', 'sitemap', 'sitemapPart'] as const) app.use(DATA_ROUTES[route].path, gate);
  }
}

/**
 * Who may call the API and how much: the middleware chain in its one order, built from one options object.
 *
 *   urlLength (414) → headWithoutBody → cors (preflight, allowed origin) → apiKey (401/403) → keyOnly (401,
 *   exports and dataset files) → rateLimit (429) → concurrencyPerClient (429) → exportsPerClient (429, exports
 *   only) → queryGate (429 beyond a client's share, 503, data requests only)
 *
 * While keys are required, a browser call without one (a listed `Origin`, or a same-origin request to a listed
 * host) is let in because browser pages cannot keep a secret, not because it proved anything: any script can send
 * those headers. So it gets what an anonymous client may have: a budget of its own per address, smaller than a
 * key's (`browserRateLimit`), and no whole-result export or dataset file, the transfers that hold a slot or
 * gigabytes for a long time. Those are what a key, issued to someone and revocable, is for.
 *
 * An export (`/v1/export/…`) is one request to the rate limit however long it streams; it holds a place of
 * MAX_CONCURRENT_PER_KEY, one of MAX_CONCURRENT_EXPORTS and a query slot until its last byte is sent. A dataset file
 * (`/v1/downloads/files/…`) holds the first two: it runs no query.
 *
 * Keys and limits cover everything under /v1 (collections, service document, `$metadata`, OpenAPI); the docs
 * page `/` and the health checks stay open for people and load balancers. Every option left out is off: tests
 * of other behaviours build the app with none, main.ts always passes the configured policy.
 */
import type { Context, Hono } from 'hono';
import { getResource } from '../../../schemas/index.js';
import type { KeyStore } from '../keys/key-store.js';
import type { QueryGate } from '../limits/query-gate.js';
import { DATA_ROUTES, PATHS } from '../http/paths.js';
import { apiClient, apiKey, keyOnly } from './api-key.js';
import { concurrencyPerClient, headWithoutBody, queryGate, type ClientSlots } from './concurrency.js';
import { cors } from './cors.js';
import { rateLimit, type Decision } from './rate-limit.js';
import { urlLength } from './url-length.js';

export interface AccessOptions {
  /** Undefined: no key is asked for (clients are counted by address). */
  readonly keys?: KeyStore;
  readonly corsOrigins?: readonly string[];
  readonly rateLimit?: { readonly rps: number; readonly burst: number; readonly now?: () => number };
  /** The budget of each address's keyless browser calls while keys are required; default `rateLimit`'s. */
  readonly browserRateLimit?: { readonly rps: number; readonly burst: number };
  readonly maxConcurrentPerKey?: number;
  /** Whole-result exports one client may run at once (counted where `shared.slots` counts, under its own names). */
  readonly maxConcurrentExports?: number;
  /**
   * Limits shared by every replica (shared/): the rate limit's buckets (`takeBrowser` at `browserRateLimit`) and the
   * places in flight, e.g. in Redis.
   */
  readonly shared?: { readonly take: (id: string) => Promise<Decision>; readonly takeBrowser?: (id: string) => Promise<Decision>; readonly slots: ClientSlots };
  readonly queryGate?: QueryGate;
  /** Default 16 KiB. */
  readonly maxUrlBytes?: number;
  readonly trustProxy?: boolean;
  /** Operational messages (rejected key ids, never keys). */
  readonly log?: (msg: string) => void;
}

export const DEFAULT_MAX_URL_BYTES = 16 * 1024;
const PROTECTED = '/v1/*';

export function registerAccess(app: Hono, opts: AccessOptions = {}, collectionPath = DATA_ROUTES.collection.path, exportPath = DATA_ROUTES.export.path, filesPath = `${PATHS.files}/*`): void {
  const trustProxy = opts.trustProxy ?? false;
  app.use('*', urlLength({ maxBytes: opts.maxUrlBytes ?? DEFAULT_MAX_URL_BYTES }));
  app.use('*', headWithoutBody());
  app.use(PROTECTED, cors({ origins: opts.corsOrigins ?? [], trustProxy }));
  app.use(PROTECTED, apiKey({ store: opts.keys, trustProxy, log: opts.log }));
  const bulk = keyOnly('Whole-result exports and dataset files');
  app.use(exportPath, bulk);
  app.use(filesPath, bulk);
  if (opts.rateLimit) {
    const keyed = rateLimit({ ...opts.rateLimit, trustProxy, take: opts.shared?.take });
    // A shared bucket counts at the budget it was made with: the keys' one serves browsers only at the keys' budget.
    const browserTake = opts.shared?.takeBrowser ?? (opts.browserRateLimit ? undefined : opts.shared?.take);
    const browser = rateLimit({ ...opts.rateLimit, ...opts.browserRateLimit, per: 'per address for browser calls without a key', trustProxy, take: browserTake });
    app.use(PROTECTED, (c, next) => (apiClient(c, trustProxy).kind === 'browser' ? browser(c, next) : keyed(c, next)));
  }
  if (opts.maxConcurrentPerKey) app.use(PROTECTED, concurrencyPerClient({ max: opts.maxConcurrentPerKey, trustProxy, slots: opts.shared?.slots }));
  const reads = (c: Context) => (c.req.method === 'GET' || c.req.method === 'HEAD') && getResource(c.req.param('resource') ?? '') !== undefined;
  if (opts.maxConcurrentExports) {
    const exports = concurrencyPerClient({ max: opts.maxConcurrentExports, trustProxy, slots: opts.shared?.slots, scope: 'export' });
    app.use(exportPath, (c, next) => (reads(c) ? exports(c, next) : next()));
    // A dataset file of several GB is as long a transfer as an export, and counts as one.
    app.use(filesPath, (c, next) => (c.req.method === 'GET' ? exports(c, next) : next()));
  }
  if (opts.queryGate) {
    const gate = queryGate(opts.queryGate, trustProxy);
    // Only requests that run a DuckDB query wait for a slot; `$metadata` shares the route pattern.
    app.use(collectionPath, (c, next) => (reads(c) ? gate(c, next) : next()));
    app.use(exportPath, (c, next) => (reads(c) ? gate(c, next) : next()));
    // OGC API – Features' items run the same queries (services/api/ogc/).
    app.use(DATA_ROUTES.items.path, gate);
    app.use(DATA_ROUTES.collectionQuery.path, (c, next) => (c.req.method === 'POST' ? gate(c, next) : next()));
    app.use(DATA_ROUTES.feature.path, gate);
    // A citation counts its rows per dataset as $apply does.
    app.use(DATA_ROUTES.citation.path, (c, next) => (reads(c) ? gate(c, next) : next()));
    // The landing pages and the harvesters' documents that query per request (routes/register-pages.ts): a crawler
    // waits for a slot as any client does.
    for (const route of ['datasetPage', 'locationPage', 'locationsDump', 'sitemap', 'sitemapPart'] as const) app.use(DATA_ROUTES[route].path, gate);
  }
}

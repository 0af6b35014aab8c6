/**
 * Who may call the API and how much: one options object made into the middleware each row of the route table
 * (http/route-table.ts) needs, in one order. Every request passes `everyRequest` (app.ts); then `mount`
 * (http/mount.ts) puts the row's `cors` and `key` (unless its key rule is `open`), then `forRoute(row)`, in front of
 * the row's lease and handler (a path no row answers is a 404, asking no key):
 *
 *   urlLength (414) → headWithoutBody → [row] cors (preflight, allowed origin) → apiKey (401/403) → keyOnly
 *   (401, `key-only` rows) → the budget of the row's cost (429, or held back up to `maxWaitMs`) → places
 *   (concurrencyPerClient: pages and exports; file places: dataset files) → exports (429, exports and whole files)
 *   → queryGate (429 beyond a client's share, 503; rows with `querySlot`)
 *
 * Each cost draws from a budget of its own, per client:
 *
 * - `rows` (pages, counts, aggregates, OGC items, citations): the rows it returns, at least `minRows`
 *   (page-rows.ts), and `maxConcurrentPerKey` places;
 * - `export`: one request of the rows' budget (`minRows`), a place, and one of `maxConcurrentExports`;
 * - `discovery` (landing pages, conformance, collections, `$metadata`, OpenAPI, queryables, the downloads index,
 *   manifest and feed, the regions' outlines, llms.txt): `discoveryRateLimit`, generous, and no place: a client's first steps
 *   never wait on its pages' budget;
 * - `file-bytes` (dataset files): `fileBytes` (bytes per second, file-bytes.ts) and `maxConcurrentFileReads` places,
 *   fit for engines that read ranges in parallel; a whole file (GET without Range) is also an export's place.
 *
 * While keys are required, a browser call without one (a listed `Origin`, or a same-origin request to a listed
 * host) is let in because browser pages cannot keep a secret, not because it proved anything: any script can send
 * those headers. So it gets what an anonymous client may have: a budget of its own per address, smaller than a
 * key's (`browserRateLimit`), and no `key-only` route (whole-result exports, dataset files), the transfers that hold
 * a slot or gigabytes for a long time. Those are what a key, issued to someone and revocable, is for.
 *
 * An export (`/v1/export/…`) holds a place of MAX_CONCURRENT_PER_KEY, one of MAX_CONCURRENT_EXPORTS and a query
 * slot until its last byte is sent.
 *
 * Keys and budgets cover everything under /v1; the docs page `/`, the explorer page and its assets, the health
 * checks and the crawlers' pages stay open (their rows' key rule is `open`, their cost `none`). Every option left
 * out is off: tests of other behaviours build the app with none, main.ts always passes the configured policy
 * (access-options.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getResource } from '../../../schemas/index.js';
import type { KeyStore } from '../keys/key-store.js';
import type { QueryGate } from '../limits/query-gate.js';
import type { RouteCost, RouteRow } from '../http/route-table.js';
import { apiClient, apiKey, keyOnly } from './api-key.js';
import { concurrencyPerClient, headWithoutBody, queryGate, type ClientSlots } from './concurrency.js';
import { cors } from './cors.js';
import { fileBytes } from './file-bytes.js';
import { pageRows } from './page-rows.js';
import { rateLimit, type Decision } from './rate-limit.js';
import { urlLength } from './url-length.js';

export interface AccessOptions {
  /** Undefined: no key is asked for (clients are counted by address). */
  readonly keys?: KeyStore;
  readonly corsOrigins?: readonly string[];
  /**
   * The pages' budget, in rows (page-rows.ts): `rps` rows per second, `burst` at once, each request at least
   * `minRows` (default 1).
   */
  readonly rateLimit?: { readonly rps: number; readonly burst: number; readonly minRows?: number; readonly now?: () => number };
  /** The rows' budget of each address's keyless browser calls while keys are required; default `rateLimit`'s. */
  readonly browserRateLimit?: { readonly rps: number; readonly burst: number };
  /** The discovery documents' budget (the rows whose cost is `discovery`); left out, they are not counted. */
  readonly discoveryRateLimit?: { readonly rps: number; readonly burst: number };
  /** Dataset files' bytes per client (file-bytes.ts); left out, they are not metered. */
  readonly fileBytes?: { readonly bytesPerSecond: number; readonly burst: number };
  /** How long a request over a budget may be held back until it fits, instead of refused (default 0). */
  readonly maxWaitMs?: number;
  /** Requests of pages (and exports, citations) one client may have in flight. */
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
    /** At `rateLimit`, in rows. */
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

export interface AccessPolicy {
  /** Before any route: the URL's length, HEAD's body. */
  readonly everyRequest: readonly MiddlewareHandler[];
  /** A row's CORS, unless its key rule is `open`: browsers' preflights, and the headers that let them read the answer. */
  cors(row: RouteRow): MiddlewareHandler[];
  /** A row's key check (401, 403), unless its key rule is `open`. */
  key(row: RouteRow): MiddlewareHandler[];
  /** A row's own: its key rule, its budget, its places, its query slot, in that order. */
  forRoute(row: RouteRow): MiddlewareHandler[];
}

export function accessPolicy(opts: AccessOptions = {}): AccessPolicy {
  const trustProxy = opts.trustProxy ?? false;
  const maxWaitMs = opts.maxWaitMs ?? 0;
  const bulk = keyOnly('Whole-result exports and dataset files');
  const budgets = costBudgets(opts, trustProxy, maxWaitMs);
  const places = opts.maxConcurrentPerKey ? concurrencyPerClient({ max: opts.maxConcurrentPerKey, trustProxy, slots: opts.shared?.slots }) : undefined;
  const filePlaces = opts.maxConcurrentFileReads ? concurrencyPerClient({ max: opts.maxConcurrentFileReads, trustProxy, slots: opts.shared?.slots, scope: 'file' }) : undefined;
  const exports = queried(opts.maxConcurrentExports ? concurrencyPerClient({ max: opts.maxConcurrentExports, trustProxy, slots: opts.shared?.slots, scope: 'export' }) : undefined);
  // A whole dataset file of several GB is as long a transfer as an export, and counts as one; the range reads of an
  // engine do not (they are metered by their bytes).
  const wholeFile: MiddlewareHandler | undefined = exports && ((c, next) => (c.req.method === 'GET' && !c.req.header('range') ? exports(c, next) : next()));
  const gate = queried(opts.queryGate ? queryGate(opts.queryGate, trustProxy) : undefined);
  const corsCheck = cors({ origins: opts.corsOrigins ?? [], trustProxy });
  const keyCheck = apiKey({ store: opts.keys, trustProxy, log: opts.log });
  const placesOf: Record<RouteCost, readonly (MiddlewareHandler | undefined)[]> = {
    rows: [places],
    export: [places, exports],
    discovery: [],
    'file-bytes': [filePlaces, wholeFile],
    none: [],
  };
  return {
    everyRequest: [urlLength({ maxBytes: opts.maxUrlBytes ?? DEFAULT_MAX_URL_BYTES }), headWithoutBody()],
    cors: (row) => (row.key === 'open' ? [] : [corsCheck]),
    key: (row) => (row.key === 'open' ? [] : [keyCheck]),
    forRoute: (row) =>
      [row.key === 'key-only' ? bulk : undefined, budgets[row.cost], ...placesOf[row.cost], row.querySlot ? gate : undefined].filter(
        (m): m is MiddlewareHandler => m !== undefined,
      ),
  };
}

/**
 * Only for a request that runs a query: a `:resource` that names none is the handler's 404 at once, never a wait for a
 * slot (nor an export's place).
 */
function queried(m: MiddlewareHandler | undefined): MiddlewareHandler | undefined {
  const named = (c: Context) => {
    const resource = c.req.param('resource');
    return resource === undefined || getResource(resource) !== undefined;
  };
  return m && ((c, next) => (named(c) ? m(c, next) : next()));
}

/** The budget each cost draws from; undefined where its option is left out. */
function costBudgets(opts: AccessOptions, trustProxy: boolean | number, maxWaitMs: number): Record<RouteCost, MiddlewareHandler | undefined> {
  const rows = (perRequest: boolean): MiddlewareHandler | undefined => {
    if (!opts.rateLimit) return undefined;
    const keyed = pageRows({ ...opts.rateLimit, maxWaitMs, trustProxy, take: opts.shared?.take, perRequest });
    // A shared bucket counts at the budget it was made with: the keys' one serves browsers only at the keys' budget.
    const browserTake = opts.shared?.takeBrowser ?? (opts.browserRateLimit ? undefined : opts.shared?.take);
    const browser = pageRows({ ...opts.rateLimit, ...opts.browserRateLimit, maxWaitMs, per: 'each address, for browser calls without a key,', trustProxy, take: browserTake, perRequest });
    return (c, next) => (apiClient(c, trustProxy).kind === 'browser' ? browser(c, next) : keyed(c, next));
  };
  const what = 'discovery requests (landing pages, collections, $metadata, OpenAPI, the downloads index)';
  return {
    rows: rows(false),
    export: rows(true),
    discovery: opts.discoveryRateLimit && rateLimit({ ...opts.discoveryRateLimit, maxWaitMs, what, trustProxy, take: opts.shared?.takeDiscovery }),
    'file-bytes': opts.fileBytes && fileBytes({ ...opts.fileBytes, maxWaitMs, trustProxy, take: opts.shared?.takeBytes }),
    none: undefined,
  };
}

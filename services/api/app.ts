/**
 * The data API as a Hono app, built from its dependencies so tests can run it with `app.request()` or on a
 * real socket. Only main.ts opens files and ports.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError, errorBody, featuresErrorBody } from './errors.js';
import { registerAccess, type AccessOptions } from './middleware/access.js';
import { compress } from './middleware/compress.js';
import { cutOnError } from './middleware/cut-on-error.js';
import { securityHeaders } from './middleware/security-headers.js';
import { collectionHandler, JSON_TYPE, notFound, type CollectionDeps } from './routes/collection.js';
import { registerDiscovery } from './routes/discovery.js';
import { registerExplore, type ExploreOptions } from './routes/explore.js';
import { registerDownloads } from './routes/downloads.js';
import { EXPORT_PATH, exportHandler } from './routes/export.js';
import { BASE_PATH } from './routes/links.js';
import { FEATURES_PATH } from './ogc/feature-links.js';
import { registerFeatures } from './ogc/register-features.js';

export interface AppDeps extends CollectionDeps {
  /** Reports unexpected errors (never user input problems); defaults to stderr. */
  readonly logError?: (err: unknown) => void;
  /** Keys, CORS and rate limits (middleware/access.ts); left out, the API is open and unlimited (tests). */
  readonly access?: AccessOptions;
  /** True once the process is draining: /readyz then answers 503 so the load balancer stops routing to it. */
  readonly draining?: () => boolean;
  /** Runs before every collection request, after the access checks (publication/follow-current.ts). */
  readonly beforeCollection?: MiddlewareHandler;
  /** EXPORT_TIMEOUT_MS for whole-result exports (routes/export.ts); unlimited when left out. */
  readonly exportTimeoutMs?: number;
  /** Where the dataset files are (routes/downloads.ts); by default `<published file>.files`. */
  readonly filesDir?: string;
  /** The explorer page at /explore (routes/explore.ts); left out, there is none. */
  readonly explore?: ExploreOptions;
}

const ALLOW = 'GET, HEAD, OPTIONS';

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const logError = deps.logError ?? ((err: unknown) => console.error(err));

  app.use('*', cutOnError()); // outermost: it must wrap the body as finally sent (compressed or not)
  app.use('*', securityHeaders({ noStore: ['/healthz', '/readyz'] }));
  app.use('*', async (c, next) => {
    await next();
    c.header('OData-Version', '4.0');
  });
  app.use('*', compress());
  registerAccess(app, deps.access);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (deps.draining?.()) throw new ApiError('unavailable', 'Shutting down: this instance takes no new requests.', {}, { 'Retry-After': '1' });
    const { snapshot, release, publication } = deps.acquire();
    try {
      await snapshot.columns({ sql: 'SELECT 1 AS ok', params: [] });
      return c.json({ status: 'ready', database: snapshot.path, ...(publication ? { publication } : {}) });
    } finally {
      release();
    }
  });

  if (deps.explore) registerExplore(app, deps.explore);
  registerDiscovery(app, deps); // before `${BASE_PATH}/:resource`, which would take `$metadata` for a resource
  const collection = collectionHandler(deps);
  if (deps.beforeCollection) app.use(`${BASE_PATH}/:resource`, deps.beforeCollection);
  app.get(`${BASE_PATH}/:resource`, collection);
  app.options(`${BASE_PATH}/:resource`, (c) => c.body(null, 204, { Allow: ALLOW }));
  app.all(`${BASE_PATH}/:resource`, (c) => {
    throw new ApiError('method_not_allowed', `${c.req.method} is not allowed: this API is read-only. Use GET.`, {}, { Allow: ALLOW });
  });

  if (deps.beforeCollection) app.use(`${EXPORT_PATH}/:resource`, deps.beforeCollection);
  app.get(`${EXPORT_PATH}/:resource`, exportHandler({ acquire: deps.acquire, ...(deps.exportTimeoutMs ? { timeoutMs: deps.exportTimeoutMs } : {}) }));
  app.options(`${EXPORT_PATH}/:resource`, (c) => c.body(null, 204, { Allow: ALLOW }));
  app.all(`${EXPORT_PATH}/:resource`, (c) => {
    throw new ApiError('method_not_allowed', `${c.req.method} is not allowed: exports are read-only. Use GET (or HEAD for the row count alone).`, {}, { Allow: ALLOW });
  });

  registerDownloads(app, { acquire: deps.acquire, links: deps.links, ...(deps.filesDir ? { filesDir: deps.filesDir } : {}) });

  if (deps.beforeCollection) app.use(`${FEATURES_PATH}/collections/*`, deps.beforeCollection);
  registerFeatures(app, deps);

  // Under /v1/features errors carry OGC's exception members (code, description) besides the API's own.
  const body = (c: { req: { path: string } }, e: ApiError) => JSON.stringify(isFeatures(c.req.path) ? featuresErrorBody(e) : errorBody(e));
  app.notFound((c) => {
    const err = notFound(c.req.path);
    return c.body(body(c, err), 404, { 'Content-Type': JSON_TYPE });
  });
  app.onError((err, c) => {
    const apiError =
      err instanceof ApiError
        ? err
        : err instanceof HTTPException
          ? new ApiError(err.status === 413 ? 'payload_too_large' : 'invalid_value', err.message)
          : undefined;
    // A query interrupted because its client went away is not a fault of ours: nobody is there to answer.
    if (!apiError && !c.req.raw.signal.aborted) logError(err);
    const e = apiError ?? new ApiError('internal', 'Internal error: the request could not be answered. Retry once; if it persists, report it with the time of the request.');
    return c.body(body(c, e), e.status as 400, { 'Content-Type': JSON_TYPE, ...e.headers });
  });
  return app;
}

function isFeatures(path: string): boolean {
  return path === FEATURES_PATH || path.startsWith(`${FEATURES_PATH}/`);
}

/**
 * Every route of the data API, one row each: what a route is, declared once, each field required so a new row must
 * decide every one. `mount` (mount.ts) composes a row's middleware from it in one order; the access policy
 * (middleware/access.ts) reads its key rule, budget and query slot; the metrics read its family
 * (observe/route-family.ts); the lease (lease.ts) serves it by its rule; `scripts/docs/architecture.test.ts` and
 * `services/api/route-table.test.ts` walk the rows (every query route behind the gate, every `/v1` row in OpenAPI).
 *
 * Rows are in the order the app mounts them where two patterns meet: `$metadata` before `:resource`, the regions'
 * routes before the generic collection's. `routeOf` looks a path up in this order.
 */
import { PatternRouter } from 'hono/router/pattern-router';
import type { RouteFamily } from '../observe/route-family.js';
import { IMMUTABLE, NEXT_LINK_PARAM, PATHS, REGIONS_COLLECTION, type LeaseRule } from './paths.js';

/** GET answers HEAD too. */
export type RouteMethod = 'GET' | 'POST';

/**
 * What a request costs and so which budget it spends (middleware/access.ts):
 * - `rows`: a page, a count, groups, a citation: the rows it returns, at least PAGE_MIN_ROWS, from the key's
 *   PAGE_ROWS_PER_SECOND, and one of MAX_CONCURRENT_PER_KEY places;
 * - `export`: a whole result: one request's rows (PAGE_MIN_ROWS), a place, and one of MAX_CONCURRENT_EXPORTS;
 * - `discovery`: a document a client reads to learn the API (DISCOVERY_RATE_LIMIT_RPS), no place;
 * - `file-bytes`: a dataset file: its bytes (FILE_BYTES_PER_SECOND) and MAX_CONCURRENT_FILE_READS places (a whole
 *   file also an export's place);
 * - `none`: no budget (health checks, the docs and explorer pages, the crawlers' pages and catalogues).
 */
export type RouteCost = 'rows' | 'export' | 'discovery' | 'file-bytes' | 'none';

/**
 * Who may call it: `open`, anyone (outside /v1); `key`, a key, or a keyless browser call from a CORS_ORIGINS origin;
 * `key-only`, a key and never a keyless browser call (the long transfers a key, revocable, is for).
 */
export type KeyRule = 'open' | 'key' | 'key-only';

/**
 * Its operation in an OpenAPI document: `{resource}` and `{collection}` stand for each resource or collection,
 * `{method}` for each of the row's methods in lower case.
 */
export interface OpenApiOperation {
  /** `api`: /v1/openapi.json (metadata/openapi.ts); `features`: /v1/features/api (ogc/features-openapi.ts). */
  readonly document: 'api' | 'features';
  readonly operationId: string;
}

export interface RouteRow {
  /** The Hono route pattern. */
  readonly path: string;
  /** The same route under other spellings (a trailing slash some clients add, `%24` for `$`). */
  readonly aliases: readonly string[];
  readonly methods: readonly RouteMethod[];
  /** The label its metrics carry (observe/route-family.ts). */
  readonly family: RouteFamily;
  readonly cost: RouteCost;
  /** Whether it waits for one of MAX_CONCURRENT_QUERIES (limits/query-gate.ts): every route that runs a query per request. */
  readonly querySlot: boolean;
  readonly key: KeyRule;
  /** How the lease serves it (lease.ts), or `none`: it reads no publication. */
  readonly lease: LeaseRule | 'none';
  /** `none` only outside /v1 (a test holds every /v1 row to an operation). */
  readonly openapi: OpenApiOperation | 'none';
  /**
   * What its POST carries, read whole before any budget or slot is taken for it and under the same bounds
   * (middleware/body-first.ts: MAX_BODY_BYTES, BODY_TIMEOUT_MS, BODY_MIN_BYTES_PER_SECOND): `query`, a query's
   * options or filter; `message`, one JSON-RPC message (MCP); `none`, no body of ours to read.
   */
  readonly body: 'query' | 'message' | 'none';
  /** `no-store`: its answer is of this instant (health); `cacheable`: a successful GET is public for a minute, or as its lease says. */
  readonly cache: 'no-store' | 'cacheable';
  /** Its error bodies: the API's (errors.ts), or with OGC API – Features' `code` and `description` besides. */
  readonly errors: 'api' | 'features';
  /** Why another method is refused, after the 405's `Allow` (what to do instead), where the methods alone do not say. */
  readonly wrongMethod?: string;
}

const items = `${PATHS.features}/collections/:collectionId/items`;
const regions = `${PATHS.features}/collections/${REGIONS_COLLECTION}`;
const downloadDocument: LeaseRule = { etag: 'publication', deadline: 'none', cacheControl: 'no-cache' };
/** A snapshot to read from, with no validator and no deadline (readiness, a collection's extent). */
const snapshotOnly: LeaseRule = { etag: 'none', deadline: 'none' };
const firstRow: LeaseRule = { etag: 'publication', deadline: 'first-row' };
const GET = ['GET'] as const;
const api = (operationId: string): OpenApiOperation => ({ document: 'api', operationId });
const features = (operationId: string): OpenApiOperation => ({ document: 'features', operationId });

/** What a GET route reads and answers unless it says otherwise: no body, cacheable, its document's error body. */
const getOnly = (openapi: OpenApiOperation | 'none') => ({ body: 'none', cache: 'cacheable', errors: openapi !== 'none' && openapi.document === 'features' ? 'features' : 'api' }) as const;
/** A discovery document under /v1: its own budget, a key, no query slot. */
const discovery = (path: string, family: RouteFamily, lease: LeaseRule | 'none', openapi: OpenApiOperation, aliases: readonly string[] = []): RouteRow => ({
  path, aliases, methods: GET, family, cost: 'discovery', querySlot: false, key: 'key', lease, openapi, ...getOnly(openapi),
});
/** A page for people or crawlers outside /v1: no key, no budget; `querySlot` when it queries per request. */
const open = (path: string, family: RouteFamily, querySlot: boolean, lease: LeaseRule | 'none', openapi: OpenApiOperation | 'none'): RouteRow => ({
  path, aliases: [], methods: GET, family, cost: 'none', querySlot, key: 'open', lease, openapi, ...getOnly(openapi),
});
/** A health check: outside /v1, never cached (a proxy must not answer for a later state). */
const health = (path: string, lease: LeaseRule | 'none', openapi: OpenApiOperation): RouteRow => ({ ...open(path, 'health', false, lease, openapi), cache: 'no-store' });

export const ROUTE_TABLE = {
  healthz: health(PATHS.healthz, 'none', api('getHealth')),
  readyz: health(PATHS.readyz, snapshotOnly, api('getReady')),
  docs: open(PATHS.docs, 'docs', false, 'none', api('getDocsPage')),
  explore: open(PATHS.explore, 'explore', false, 'none', 'none'),
  exploreAsset: open(`${PATHS.explore}/assets/:file`, 'explore', false, 'none', 'none'),

  serviceDocument: discovery(PATHS.odata, 'discovery', 'none', api('getServiceDocument'), [`${PATHS.odata}/`]),
  // Before the collection: `:resource` would take `$metadata` for a resource.
  metadata: discovery(`${PATHS.odata}/$metadata`, 'discovery', 'none', api('getMetadataDocument'), [`${PATHS.odata}/%24metadata`]),
  openapi: discovery(PATHS.openapi, 'discovery', 'none', api('getOpenApi')),
  // OData 4.01 §11.2.5.x, passing query options in the request body: the same query, too long for a URL.
  collectionQuery: {
    path: `${PATHS.odata}/:resource/$query`, aliases: [], methods: ['POST'], family: 'odata', cost: 'rows', querySlot: true, key: 'key', lease: firstRow, openapi: api('query{resource}'),
    body: 'query', cache: 'cacheable', errors: 'api',
    wrongMethod: `POST the query options as text/plain ($filter=…&$top=…), or GET ${PATHS.odata}/{resource}?… for a query that fits in a URL.`,
  },
  // OData 4.01 Part 2 §4.8, the count of a collection as plain text: a count query, so it costs and waits as
  // `$count=true` does, and it is one publication's number (its ETag) as a page is.
  count: { path: `${PATHS.odata}/:resource/$count`, aliases: [`${PATHS.odata}/:resource/%24count`], methods: GET, family: 'odata', cost: 'rows', querySlot: true, key: 'key', lease: firstRow, openapi: api('count{resource}'), ...getOnly('none') },
  collection: { path: `${PATHS.odata}/:resource`, aliases: [], methods: GET, family: 'odata', cost: 'rows', querySlot: true, key: 'key', lease: { ...firstRow, continuation: NEXT_LINK_PARAM.odata }, openapi: api('get{resource}'), ...getOnly('none') },
  // An export is one publication's rows: cacheable only as long as the publication is served.
  export: { path: `${PATHS.export}/:resource`, aliases: [], methods: GET, family: 'export', cost: 'export', querySlot: true, key: 'key-only', lease: { etag: 'publication', deadline: 'whole-body', cacheControl: 'no-cache' }, openapi: api('export{resource}'), ...getOnly('none') },
  // What to credit for a query's rows: a function of the publication, as the rows are (routes/citation.ts); it
  // counts its rows per dataset as $apply does.
  citation: { path: `${PATHS.citation}/:resource`, aliases: [], methods: GET, family: 'citation', cost: 'rows', querySlot: true, key: 'key', lease: firstRow, openapi: api('cite{resource}'), ...getOnly('none') },
  // The datasets whose words match, ranked, from the index ingest builds at publish (routes/search.ts): a query,
  // metered by the datasets it returns as a page is by its rows.
  datasetSearch: { path: PATHS.datasetSearch, aliases: [], methods: GET, family: 'search', cost: 'rows', querySlot: true, key: 'key', lease: firstRow, openapi: api('searchDatasets'), ...getOnly('none') },

  downloads: discovery(PATHS.downloads, 'downloads', downloadDocument, api('getDownloads')),
  manifest: discovery(PATHS.manifest, 'downloads', downloadDocument, api('getParquetManifest')),
  publications: discovery(PATHS.publications, 'publications', downloadDocument, api('getPublications')),
  // no-transform: a cache or proxy must not recompress the bytes the ranges and the hash count.
  file: { path: `${PATHS.files}/:hash/:name`, aliases: [], methods: GET, family: 'files', cost: 'file-bytes', querySlot: false, key: 'key-only', lease: { etag: 'content', deadline: 'none', cacheControl: `${IMMUTABLE}, no-transform` }, openapi: api('getDatasetFile'), ...getOnly('none') },

  // OWSLib asks for the landing page with a trailing slash.
  featuresLanding: discovery(PATHS.features, 'features', 'none', features('getLandingPage'), [`${PATHS.features}/`]),
  conformance: discovery(`${PATHS.features}/conformance`, 'features', 'none', features('getConformance')),
  featuresApi: discovery(`${PATHS.features}/api`, 'features', 'none', features('getApi')),
  featureCollections: discovery(`${PATHS.features}/collections`, 'features', snapshotOnly, features('getCollections')),
  // The regions come from REGIONS_FILE, read once, not from a query: the explorer's map draws them first. Before the
  // generic collection's routes, which would take `regions` for a resource.
  regionsCollection: discovery(regions, 'features', 'none', features('describeCollection')),
  regionsQueryables: discovery(`${regions}/queryables`, 'features', 'none', features('getQueryables')),
  regionsItems: discovery(`${regions}/items`, 'items', 'none', features('getRegionsFeatures')),
  region: discovery(`${regions}/items/:regionId`, 'items', 'none', features('getRegion')),
  featureCollection: discovery(`${PATHS.features}/collections/:collectionId`, 'features', snapshotOnly, features('describeCollection')),
  queryables: discovery(`${PATHS.features}/collections/:collectionId/queryables`, 'features', 'none', features('getQueryables')),
  // Each collection's properties typed (OGC API – Features Part 5's logical schema; a GeoJSON Feature's, GDAL's describedby).
  schema: discovery(`${PATHS.features}/collections/:collectionId/schema`, 'features', 'none', features('getSchema')),
  geojsonSchema: discovery(`${PATHS.features}/collections/:collectionId/schema/geojson`, 'features', 'none', features('getGeoJsonSchema')),
  // POST: the filter as a CQL2-JSON body, for filters too long for a URL.
  items: {
    path: items, aliases: [], methods: ['GET', 'POST'], family: 'items', cost: 'rows', querySlot: true, key: 'key', lease: { ...firstRow, continuation: NEXT_LINK_PARAM.items }, openapi: features('{method}{collection}Features'),
    body: 'query', cache: 'cacheable', errors: 'features',
  },
  feature: { path: `${items}/:featureId`, aliases: [], methods: GET, family: 'items', cost: 'rows', querySlot: true, key: 'key', lease: firstRow, openapi: features('getFeature'), ...getOnly(features('getFeature')) },

  // Landing pages and catalogues for search engines and harvesters (pages/register-pages.ts): outside /v1, so
  // crawlers that send no key read them; those that query per request wait for a slot as any client does.
  // A DOI keeps its slash in the path, as doi.org's URLs do: /datasets/10.25976/abcd-ef12.
  datasetPage: open(`${PATHS.datasetPages}/:doi{.+}`, 'pages', true, firstRow, api('getDatasetPage')),
  locationPage: open(`${PATHS.locationPages}/:id`, 'pages', true, firstRow, api('getLocationPage')),
  catalogue: open(PATHS.catalogue, 'pages', false, firstRow, api('getCatalogue')),
  catalogueJsonLd: open(PATHS.catalogueJsonLd, 'pages', false, firstRow, api('getCatalogueJsonLd')),
  catalogueTurtle: open(PATHS.catalogueTurtle, 'pages', false, firstRow, api('getCatalogueTurtle')),
  // Every location streamed: as long as an export may take.
  locationsDump: open(PATHS.locationsDump, 'pages', true, { etag: 'publication', deadline: 'whole-body' }, api('getLocationsDump')),
  sitemap: open(PATHS.sitemap, 'pages', true, firstRow, api('getSitemap')),
  // sitemap-1.xml, sitemap-2.xml, …: beside /sitemap.xml, since a sitemap may list only URLs under its own folder.
  sitemapPart: open('/:file{sitemap-[0-9]+\\.xml}', 'pages', true, firstRow, 'none'),
  robots: open(PATHS.robots, 'pages', false, 'none', api('getRobots')),

  // The assistants' doors (mcp/): the MCP server is keyed as /v1 is (its key rule is `key`) and costs a
  // discovery request; each tool call's reads are the caller's own /v1 requests, metered and gated as such, so the
  // door itself takes no query slot. llms.txt is a document for anyone, as the docs page is, and costs a discovery
  // request of the address that asks, as an assistant's other first reads do. Its message is read whole under the
  // body deadline a POSTed query is (a trickled message held a socket for Node's 300 s: issue 56 item 5), then
  // handed to the SDK's transport parsed (mcp/mcp-handler.ts).
  mcp: {
    path: PATHS.mcp, aliases: [], methods: ['POST'], family: 'mcp', cost: 'discovery', querySlot: false, key: 'key', lease: 'none', openapi: api('postMcp'),
    body: 'message', cache: 'cacheable', errors: 'api',
    wrongMethod: `this MCP server is stateless (no SSE stream to GET, no session to DELETE). POST JSON-RPC messages to ${PATHS.mcp}.`,
  },
  llmsTxt: { ...open(PATHS.llmsTxt, 'docs', false, 'none', api('getLlmsTxt')), cost: 'discovery' },
  llmsFullTxt: { ...open(PATHS.llmsFullTxt, 'docs', false, 'none', api('getLlmsFullTxt')), cost: 'discovery' },
} as const satisfies Readonly<Record<string, RouteRow>>;

export type RouteName = keyof typeof ROUTE_TABLE;
/** The rows the lease serves. */
export type LeasedRouteName = { [K in RouteName]: (typeof ROUTE_TABLE)[K]['lease'] extends 'none' ? never : K }[RouteName];

export const ROUTE_NAMES = Object.keys(ROUTE_TABLE) as RouteName[];

const router = new PatternRouter<RouteName>();
for (const name of ROUTE_NAMES) for (const path of [ROUTE_TABLE[name].path, ...ROUTE_TABLE[name].aliases]) router.add('ALL', path, name);

/**
 * The row a path belongs to, whatever the method (a 405 or an OPTIONS is still that route's), in the table's order.
 * @example routeOf('/v1/odata/v4/$metadata') // 'metadata'
 */
export function routeOf(path: string): RouteName | undefined {
  return router.match('GET', path)[0][0]?.[0];
}

/**
 * The row of the path, else of its nearest ancestor that has one: what a path no row answers belongs to (its 404's
 * body is that row's kind).
 * @example nearestRoute('/v1/features/collections/x/nothing/here') // 'feature' (…/items/:featureId's shape)
 */
export function nearestRoute(path: string): RouteName | undefined {
  for (let p = path; p.length > 0; p = p.slice(0, Math.max(p.lastIndexOf('/'), 0))) {
    const route = routeOf(p);
    if (route) return route;
  }
  return routeOf('/');
}

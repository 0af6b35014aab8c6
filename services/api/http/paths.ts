/**
 * Every public path of the data API, declared once: the routers mount these, and OpenAPI, `$metadata`, the docs
 * page, the explorer and the link builders read them. A data route (one that answers from a publication) also
 * declares here how the lease (lease.ts) serves it, so a route's validator, deadline and next-link parameter are
 * data beside its path, not code in its handler.
 */

export const PATHS = {
  docs: '/',
  healthz: '/healthz',
  readyz: '/readyz',
  explore: '/explore',
  odata: '/v1/odata/v4',
  openapi: '/v1/openapi.json',
  export: '/v1/export',
  downloads: '/v1/downloads',
  manifest: '/v1/downloads/manifest.json',
  files: '/v1/downloads/files',
  publications: '/v1/publications',
  features: '/v1/features',
  citation: '/v1/citation',
  // Landing pages and catalogues for search engines and harvesters (routes/register-pages.ts): outside /v1, so
  // crawlers that send no key read them, as they read the docs page.
  datasetPages: '/datasets',
  locationPages: '/locations',
  catalogue: '/catalogue',
  catalogueJsonLd: '/catalogue.jsonld',
  catalogueTurtle: '/catalogue.ttl',
  locationsDump: '/catalogue/locations.ndjson',
  sitemap: '/sitemap.xml',
  robots: '/robots.txt',
  // For assistants (issue 49): the Model Context Protocol's door (mcp/), and the llms.txt convention's two pages
  // (https://llmstxt.org), at the root as robots.txt is.
  mcp: '/mcp',
  llmsTxt: '/llms.txt',
  llmsFullTxt: '/llms-full.txt',
} as const;

/**
 * The parameter a next link adds to continue a response: what makes a request "the next page" (the replicas'
 * guard, publication/follow-current.ts, keys on it). The link builders write exactly these names.
 */
export const NEXT_LINK_PARAM = { odata: '$skiptoken', items: 'cursor' } as const;

/**
 * The query parameter that pins a request to one publication (issue 38): any read URL accepts it, and every link a
 * response hands out to continue it (next links) carries the publication its first page came from.
 */
export const PIN_PARAM = 'publication';

/** The pin parameter as OpenAPI documents it, in the OData and the features documents alike. */
export const PIN_PARAMETER_DOC = {
  name: PIN_PARAM,
  in: 'query',
  required: false,
  description:
    'A publication id (a response\'s Tributary-Publication header, or /v1/publications): answer from that publication instead of the current one. ' +
    'Next links carry the publication of the page they continue, so an extract followed to its end is one publication\'s rows. ' +
    'A publication stays readable for PUBLICATION_RETENTION_MS after a newer one replaces it (the three newest always); past that, 410 publication_gone names the current one.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9:._-]{1,128}$' },
} as const;

/** The response header naming the publication an answer was read from (besides the weak ETag, which some routes lack). */
export const PUBLICATION_HEADER = 'Tributary-Publication';

/** A dataset file's URL names its content: cacheable forever by anyone. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface LeaseRule {
  /**
   * The validator If-None-Match is compared with: `publication`, the publication's weak ETag, answered with 304
   * before the handler runs; `content`, one the handler names from what it reads (`lease.notModified`); `none`.
   */
  readonly etag: 'publication' | 'content' | 'none';
  /**
   * `first-row`: QUERY_TIMEOUT_MS until the handler returns (a page returns once its first rows are rendered);
   * `whole-body`: EXPORT_TIMEOUT_MS until the last byte; `none`: only the client's disconnect stops the query.
   */
  readonly deadline: 'first-row' | 'whole-body' | 'none';
  /** Cache-Control of the route's 2xx and 304 answers (errors keep the API's `no-store`). */
  readonly cacheControl?: string;
  /** The query parameter of this route's next links (NEXT_LINK_PARAM): a request carrying it continues one. */
  readonly continuation?: string;
}

export interface DataRoute {
  /** The Hono route pattern. */
  readonly path: string;
  readonly lease: LeaseRule;
}

const items = `${PATHS.features}/collections/:collectionId/items`;
const downloadDocument: LeaseRule = { etag: 'publication', deadline: 'none', cacheControl: 'no-cache' };
/** A snapshot to read from, with no validator and no deadline (readiness, a collection's extent). */
const snapshotOnly: LeaseRule = { etag: 'none', deadline: 'none' };

/** Every route that reads a snapshot, each served by the one lease with its rule. */
export const DATA_ROUTES = {
  readyz: { path: PATHS.readyz, lease: snapshotOnly },
  collection: { path: `${PATHS.odata}/:resource`, lease: { etag: 'publication', deadline: 'first-row', continuation: NEXT_LINK_PARAM.odata } },
  // OData 4.01 §11.2.5.x, passing query options in the request body: the same query, too long for a URL.
  collectionQuery: { path: `${PATHS.odata}/:resource/$query`, lease: { etag: 'publication', deadline: 'first-row' } },
  // An export is one publication's rows: cacheable only as long as the publication is served.
  export: { path: `${PATHS.export}/:resource`, lease: { etag: 'publication', deadline: 'whole-body', cacheControl: 'no-cache' } },
  downloads: { path: PATHS.downloads, lease: downloadDocument },
  manifest: { path: PATHS.manifest, lease: downloadDocument },
  publications: { path: PATHS.publications, lease: downloadDocument },
  // no-transform: a cache or proxy must not recompress the bytes the ranges and the hash count.
  file: { path: `${PATHS.files}/:hash/:name`, lease: { etag: 'content', deadline: 'none', cacheControl: `${IMMUTABLE}, no-transform` } },
  featureCollections: { path: `${PATHS.features}/collections`, lease: snapshotOnly },
  featureCollection: { path: `${PATHS.features}/collections/:collectionId`, lease: snapshotOnly },
  items: { path: items, lease: { etag: 'publication', deadline: 'first-row', continuation: NEXT_LINK_PARAM.items } },
  feature: { path: `${items}/:featureId`, lease: { etag: 'publication', deadline: 'first-row' } },
  // What to credit for a query's rows: a function of the publication, as the rows are (routes/citation.ts).
  citation: { path: `${PATHS.citation}/:resource`, lease: { etag: 'publication', deadline: 'first-row' } },
  // A DOI keeps its slash in the path, as doi.org's URLs do: /datasets/10.25976/abcd-ef12.
  datasetPage: { path: `${PATHS.datasetPages}/:doi{.+}`, lease: { etag: 'publication', deadline: 'first-row' } },
  locationPage: { path: `${PATHS.locationPages}/:id`, lease: { etag: 'publication', deadline: 'first-row' } },
  catalogue: { path: PATHS.catalogue, lease: { etag: 'publication', deadline: 'first-row' } },
  catalogueJsonLd: { path: PATHS.catalogueJsonLd, lease: { etag: 'publication', deadline: 'first-row' } },
  catalogueTurtle: { path: PATHS.catalogueTurtle, lease: { etag: 'publication', deadline: 'first-row' } },
  // Every location streamed: as long as an export may take.
  locationsDump: { path: PATHS.locationsDump, lease: { etag: 'publication', deadline: 'whole-body' } },
  sitemap: { path: PATHS.sitemap, lease: { etag: 'publication', deadline: 'first-row' } },
  // sitemap-1.xml, sitemap-2.xml, …: beside /sitemap.xml, since a sitemap may list only URLs under its own folder.
  sitemapPart: { path: '/:file{sitemap-[0-9]+\\.xml}', lease: { etag: 'publication', deadline: 'first-row' } },
} as const satisfies Readonly<Record<string, DataRoute>>;

export type DataRouteName = keyof typeof DATA_ROUTES;

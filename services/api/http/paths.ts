/**
 * Every public path of the data API, declared once: the routers mount these, and OpenAPI, `$metadata`, the docs
 * page, the explorer and the link builders read them. Each route built on them is one row of route-table.ts,
 * which names, among its other fields, the `LeaseRule` declared here.
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
  // The datasets whose words match (issue 56 item 4): what MCP's search_datasets asks, read from an index built at publish.
  datasetSearch: '/v1/search/datasets',
  // Landing pages and catalogues for search engines and harvesters (pages/register-pages.ts): outside /v1, so
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

/** The OGC collection of REGIONS_FILE's outlines (ogc/regions-collection.ts): read from the file, never queried. */
export const REGIONS_COLLECTION = 'regions';

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

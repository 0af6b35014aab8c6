/**
 * What a request under /v1 costs the service, and so which budget it draws from (access.ts):
 *
 * - `discovery`: the documents a client reads to learn the API before it asks for data (the service document,
 *   `$metadata`, OpenAPI, the OGC landing page, conformance, collections, a collection, its queryables, the
 *   downloads index, the manifest and the change feed), and the regions collection's outlines. Each is small, built from the catalogue or one publication's
 *   list, and cacheable; GIS clients read five or six of them in their first second (GDAL 3.12: landing page, API
 *   description, collections, then the items), so they must never spend the pages' bucket.
 * - `file`: a dataset file (range, HEAD or whole): no query runs, so it is metered by the bytes it sends.
 * - `page`: everything else (pages, counts, aggregates, OGC items, exports): the DataStream contract of 2 requests/s.
 */
import { PATHS } from '../http/paths.js';
import { REGIONS_COLLECTION } from '../ogc/regions-collection.js';

export type RequestCost = 'discovery' | 'file' | 'page';

const escape = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exact = (...paths: string[]) => paths.map((p) => new RegExp(`^${escape(p)}/?$`));
const COLLECTION = `${escape(PATHS.features)}/collections/[^/]+`;

/** The discovery documents' paths (a trailing slash allowed, as the routers answer it). */
const DISCOVERY: readonly RegExp[] = [
  ...exact(PATHS.odata, PATHS.openapi, PATHS.features, `${PATHS.features}/conformance`, `${PATHS.features}/api`, `${PATHS.features}/collections`),
  ...exact(PATHS.downloads, PATHS.manifest, PATHS.publications),
  // An MCP message itself runs no query: a tool call's reads are requests of their own, each costed as it is.
  ...exact(PATHS.mcp),
  new RegExp(`^${escape(PATHS.odata)}/(\\$|%24)metadata$`),
  new RegExp(`^${COLLECTION}/?$`),
  new RegExp(`^${COLLECTION}/queryables$`),
  // The regions' outlines come from REGIONS_FILE, read once, not from a query: the explorer's map draws them first.
  new RegExp(`^${escape(PATHS.features)}/collections/${REGIONS_COLLECTION}/items(/[^/]+)?/?$`),
];

export function requestCost(path: string): RequestCost {
  if (path.startsWith(`${PATHS.files}/`)) return 'file';
  return DISCOVERY.some((re) => re.test(path)) ? 'discovery' : 'page';
}

/**
 * OGC API – Features (Part 1, 17-069r4; Part 3's queryables) at /v1/features, beside the OData API and under the
 * same keys, CORS and rate limits (everything under /v1 is: middleware/access.ts). JSON by default; HTML for
 * `f=html` and browsers (html-negotiation.ts), rendered from the same JSON document (features-html.ts).
 */
import type { Context } from 'hono';
import { readExtent, type Extent } from '../exec/extent.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import type { Mount } from '../http/mount.js';
import { PATHS } from '../http/paths.js';
import { FEATURE_COLLECTIONS, type FeatureCollectionDef } from './feature-collections.js';
import { collectionUrl, GEOJSON, JSON_MEDIA, link, OPENAPI_MEDIA, schemaLinks, SCHEMA_MEDIA } from './feature-links.js';
import { collectionHtml, collectionsHtml, conformanceHtml, HTML_CSP, landingHtml } from './features-html.js';
import { featuresOpenApi } from './features-openapi.js';
import { HTML_CONFORMANCE, HTML_MEDIA, responseEncoding, withF } from './html-negotiation.js';
import { collectionOf, featureHandler, itemsBodyQuery, itemsHandler } from './items.js';
import { CRS84, DATETIME_FIELD } from './items-query.js';
import { collectionSubject, geojsonSchema, logicalSchema, regionsSubject } from './collection-schema.js';
import { queryables } from './queryables.js';
import { describeRegions, REGIONS_COLLECTION, registerRegions, type RegionSource } from './regions-collection.js';

/** Only what the tests beside this file exercise against a real file and real clients. */
export const CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
  HTML_CONFORMANCE,
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters',
  // Part 3 filtering with CQL2-Text and CQL2-JSON: comparisons, AND/OR/NOT, IS NULL, and the eight spatial
  // functions with every geometry literal, over each feature's point (docs/features.md has the subset and what each
  // function means for a point; LIKE, BETWEEN and IN are read too, but LIKE only as a prefix, suffix or infix, so
  // advanced-comparison-operators is not declared).
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2',
  'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
  'http://www.opengis.net/spec/cql2/1.0/conf/cql2-json',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus',
  'http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions',
] as const;

const KEY_HELP = 'Send your API key in the x-api-key header (GDAL and QGIS: GDAL_HTTP_HEADERS="x-api-key: <key>"); keys are issued by the operator of this service, see the API docs.';

/** `mount`: each route of its row (http/route-table.ts); `regions`: REGIONS_FILE's regions. */
export function registerFeatures(mount: Mount, deps: HandlerDeps, regions: RegionSource): void {
  const base = (c: Context) => c.get('base');

  mount('featuresLanding', (c) => landing(c));
  const landing = (c: Context) => {
    const b = base(c);
    return respond(c, `${b}${PATHS.features}`, landingHtml, {
      title: 'Tributary: water-quality monitoring data',
      description: `Monitoring locations and observations as GeoJSON features, from the same data as the OData API (/v1/odata/v4). ${KEY_HELP}`,
      links: [
        link(`${b}${PATHS.features}`, 'self', JSON_MEDIA, 'This document'),
        link(`${b}${PATHS.features}/api`, 'service-desc', OPENAPI_MEDIA, 'The API definition'),
        link(`${b}/`, 'service-doc', 'text/html', 'The API documentation, and how to get a key'),
        link(`${b}${PATHS.features}/conformance`, 'conformance', JSON_MEDIA, 'Conformance classes implemented'),
        link(`${b}${PATHS.features}/collections`, 'data', JSON_MEDIA, 'The collections'),
        link(`${b}${PATHS.catalogue}`, 'describedby', 'application/ld+json', 'DCAT catalogue of every dataset (also text/turtle)'),
        link(`${b}${PATHS.sitemap}`, 'describedby', 'application/xml', 'Sitemap of the datasets\' and locations\' landing pages'),
        htmlAlternate(`${b}${PATHS.features}`),
      ],
    });
  };
  const respond = <T>(c: Context, self: string, render: (base: string, self: string, doc: T) => string, doc: T) => {
    if (responseEncoding(c) === 'json') return c.json(doc, 200, { Vary: 'Accept' });
    return c.body(render(base(c), self, doc), 200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': HTML_CSP, Vary: 'Accept' });
  };
  mount('conformance', (c) => respond(c, `${base(c)}${PATHS.features}/conformance`, conformanceHtml, { conformsTo: CONFORMANCE }));
  mount('featuresApi', (c) => c.body(JSON.stringify(featuresOpenApi(base(c))), 200, { 'Content-Type': OPENAPI_MEDIA }));
  mount('featureCollections', async (c) => {
    const b = base(c);
    const extent = await readExtent(c.get('lease').snapshot);
    const self = `${b}${PATHS.features}/collections`;
    const collections = [...FEATURE_COLLECTIONS.map((col) => describe(b, col, extent)), await describeRegions(b, regions)];
    return respond(c, self, collectionsHtml, { links: [link(self, 'self', JSON_MEDIA, 'The collections'), htmlAlternate(self)], collections });
  });
  // Before the generic collection routes, which would take `regions` for a resource of the published file.
  registerRegions(mount, regions);
  mount('featureCollection', async (c) => {
    const collection = collectionOf(c);
    return respond(c, collectionUrl(base(c), collection), collectionHtml, describe(base(c), collection, await readExtent(c.get('lease').snapshot)));
  });
  mount('queryables', (c) => c.body(JSON.stringify(queryables(base(c), collectionOf(c))), 200, { 'Content-Type': SCHEMA_MEDIA }));
  const subject = (c: Context) => (c.req.param('collectionId') === REGIONS_COLLECTION ? regionsSubject(`${base(c)}${PATHS.features}/collections/${REGIONS_COLLECTION}`) : collectionSubject(base(c), collectionOf(c), DATETIME_FIELD));
  mount('schema', (c) => c.body(JSON.stringify(logicalSchema(subject(c))), 200, { 'Content-Type': SCHEMA_MEDIA }));
  mount('geojsonSchema', (c) => c.body(JSON.stringify(geojsonSchema(subject(c))), 200, { 'Content-Type': SCHEMA_MEDIA }));
  mount('items', { GET: itemsHandler(deps), POST: itemsHandler(deps, itemsBodyQuery) });
  mount('feature', featureHandler(deps));
}

/** The same document as an HTML page (the html conformance class: every resource has one). */
export function htmlAlternate(url: string): ReturnType<typeof link> {
  return link(withF(url, 'html'), 'alternate', HTML_MEDIA, 'This document as HTML');
}

function describe(base: string, collection: FeatureCollectionDef, extent: Extent | undefined) {
  const url = collectionUrl(base, collection);
  return {
    id: collection.id,
    title: collection.title,
    description: collection.description,
    itemType: 'feature',
    crs: [CRS84],
    ...(extent
      ? {
          extent: {
            spatial: { bbox: [extent.bbox], crs: CRS84 },
            temporal: { interval: [[extent.interval[0] ? `${extent.interval[0]}T00:00:00Z` : null, extent.interval[1] ? `${extent.interval[1]}T23:59:59Z` : null]], trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian' },
          },
        }
      : {}),
    links: [
      link(url, 'self', JSON_MEDIA, collection.title),
      htmlAlternate(url),
      link(`${url}/items`, 'items', GEOJSON, `${collection.title} as GeoJSON`),
      link(withF(`${url}/items`, 'html'), 'items', HTML_MEDIA, `${collection.title} as HTML, with a map`),
      link(`${url}/queryables`, 'http://www.opengis.net/def/rel/ogc/1.0/queryables', SCHEMA_MEDIA, 'The fields it filters by'),
      ...schemaLinks(url),
    ],
  };
}

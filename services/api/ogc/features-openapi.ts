/**
 * The features API's OpenAPI 3.0 description (`service-desc`): every path with its parameters, each collection's
 * items path with its own field parameters (GDAL reads them to know which filters the server applies).
 */
import { FEATURE_COLLECTIONS, queryableDimensions, type FeatureCollectionDef } from './feature-collections.js';
import { PATHS, PIN_PARAMETER_DOC } from '../http/paths.js';
import { GEOJSON, JSON_MEDIA, SCHEMA_MEDIA } from './feature-links.js';
import { DATETIME_FIELD, ITEMS_LIMIT } from './items-query.js';
import { queryableSchema } from './queryables.js';
import { REGIONS_COLLECTION, REGIONS_LIMIT } from './regions-collection.js';

const ref = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const json = (description: string, schema: object = { type: 'object' }, media = JSON_MEDIA) => ({ description, content: { [media]: { schema } } });
/** The same resource as an HTML page (f=html, or a browser's Accept). */
const html = (ok: { description: string; content: object }) => ({ ...ok, content: { ...ok.content, 'text/html': { schema: { type: 'string' } } } });
const errors = {
  '400': { $ref: '#/components/responses/Error' },
  '404': { $ref: '#/components/responses/Error' },
};

function itemsPath(collection: FeatureCollectionDef) {
  const fields = queryableDimensions(collection).map((dim) => ({
    name: dim.name,
    in: 'query',
    required: false,
    description: `${dim.description} Items whose ${dim.name} equals the value; repeat the parameter for any of several.`,
    schema: queryableSchema(dim),
    style: 'form',
    explode: true,
  }));
  return {
    get: {
      operationId: `get${collection.id[0]!.toUpperCase()}${collection.id.slice(1)}Features`,
      summary: `${collection.title}: a page of features`,
      tags: ['Data'],
      parameters: [ref('limit'), ref('bbox'), ref('datetime'), ref('filter'), ref('filter-lang'), ref('filter-crs'), ref('properties'), ref('cursor'), ref('publication'), ref('f'), ...fields],
      responses: { '200': html(json('A GeoJSON FeatureCollection; the next page in its `next` link. As HTML: a table and a map of the page.', { type: 'object' }, GEOJSON)), ...errors },
    },
    post: {
      operationId: `post${collection.id[0]!.toUpperCase()}${collection.id.slice(1)}Features`,
      summary: `${collection.title}: a page of features, the filter a CQL2-JSON body (for filters too long for a URL)`,
      tags: ['Data'],
      parameters: [ref('limit'), ref('bbox'), ref('datetime'), ref('filter-crs'), ref('properties'), ref('cursor'), ...fields],
      requestBody: {
        required: true,
        description: 'A CQL2-JSON filter, at most MAX_BODY_BYTES (413 beyond), arriving whole within BODY_TIMEOUT_MS at BODY_MIN_BYTES_PER_SECOND or faster (408 otherwise), as if sent as filter=…&filter-lang=cql2-json.',
        content: Object.fromEntries(['application/query-cql-json', 'application/json'].map((type) => [type, { schema: { type: 'object' } }])),
      },
      responses: { '200': json('A GeoJSON FeatureCollection; its `next` link carries the filter as cql2-json.', { type: 'object' }, GEOJSON), ...errors, '408': { $ref: '#/components/responses/Error' } },
    },
  };
}

export function featuresOpenApi(base: string) {
  const ops = (operationId: string, summary: string, ok: object, parameters: object[] = []) => ({
    get: { operationId, summary, tags: ['Capabilities'], parameters, responses: { '200': ok, ...errors } },
  });
  const collectionId = { name: 'collectionId', in: 'path', required: true, schema: { type: 'string', enum: FEATURE_COLLECTIONS.map((c) => c.id) } };
  const anyCollection = { ...collectionId, schema: { type: 'string', enum: [...FEATURE_COLLECTIONS.map((c) => c.id), REGIONS_COLLECTION] } };
  const query = (name: string, description: string, schema: object) => ({ name, in: 'query', required: false, style: 'form', explode: false, description, schema });
  return {
    openapi: '3.0.3',
    info: {
      title: 'Tributary: OGC API – Features',
      version: '1.0.0',
      description: 'Water-quality monitoring locations and observations as GeoJSON features (OGC API – Features Part 1: core, geojson, oas30). Send your API key in the x-api-key header.',
    },
    servers: [{ url: `${base}${PATHS.features}` }],
    security: [{ apiKey: [] }],
    paths: {
      '/': ops('getLandingPage', 'Landing page', html(json('Links to the API description, conformance and collections.')), [ref('f')]),
      '/conformance': ops('getConformance', 'Conformance classes implemented', html(json('conformsTo: the classes implemented.')), [ref('f')]),
      '/api': ops('getApi', 'This OpenAPI document', json('OpenAPI 3.0.', { type: 'object' }, 'application/vnd.oai.openapi+json;version=3.0')),
      '/collections': ops('getCollections', 'The collections', html(json('locations, observations, location summaries, guideline comparisons, the water quality index and regions with their extents.')), [ref('publication'), ref('f')]),
      '/collections/{collectionId}': ops('describeCollection', 'One collection', html(json('Its extent and links.')), [anyCollection, ref('publication'), ref('f')]),
      '/collections/{collectionId}/queryables': ops('getQueryables', 'The fields a collection filters by', json('A JSON Schema.', { type: 'object' }, SCHEMA_MEDIA), [anyCollection]),
      '/collections/{collectionId}/schema': ops('getSchema', "The properties of a collection's features, typed (OGC API – Features Part 5's logical schema: x-ogc-role, x-ogc-propertySeq)", json('A JSON Schema.', { type: 'object' }, SCHEMA_MEDIA), [anyCollection]),
      '/collections/{collectionId}/schema/geojson': ops('getGeoJsonSchema', "A collection's features as GeoJSON, typed (the collection's describedby link, which GDAL's OAPIF driver reads)", json('A JSON Schema of a GeoJSON Feature.', { type: 'object' }, SCHEMA_MEDIA), [anyCollection]),
      ...Object.fromEntries(FEATURE_COLLECTIONS.map((c) => [`/collections/${c.id}/items`, itemsPath(c)])),
      '/collections/{collectionId}/items/{featureId}': ops('getFeature', 'One feature by its Id', html(json('A GeoJSON Feature. As HTML: its properties and a map.', { type: 'object' }, GEOJSON)), [
        collectionId,
        { name: 'featureId', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } },
        ref('f'),
      ]),
      [`/collections/${REGIONS_COLLECTION}/items`]: {
        get: {
          operationId: 'getRegionsFeatures',
          summary: "Regions (REGIONS_FILE's sets: hubs, watersheds) with their outlines: a page of features",
          tags: ['Data'],
          parameters: [
            query('limit', `Regions per page: default ${REGIONS_LIMIT.default}, at most ${REGIONS_LIMIT.max}.`, { type: 'integer', minimum: 1, maximum: REGIONS_LIMIT.max, default: REGIONS_LIMIT.default }),
            query('offset', 'How many matching regions to skip: set by the next link.', { type: 'integer', minimum: 0, default: 0 }),
            query('bbox', "west,south,east,north in WGS 84 degrees: the regions whose outline's bounding box meets it.", { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } }),
            query('set', 'One set or several, comma-separated (huc8,huc10): the prefix of their RegionIds.', { type: 'string' }),
          ],
          responses: { '200': json('A GeoJSON FeatureCollection of Polygon/MultiPolygon features with properties RegionId, name and set.', { type: 'object' }, GEOJSON), ...errors },
        },
      },
      [`/collections/${REGIONS_COLLECTION}/items/{regionId}`]: ops('getRegion', 'One region by its RegionId', json('A GeoJSON Feature.', { type: 'object' }, GEOJSON), [
        { name: 'regionId', in: 'path', required: true, schema: { type: 'string' }, example: 'huc10.1702000805' },
      ]),
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      parameters: {
        limit: {
          name: 'limit', in: 'query', required: false, style: 'form', explode: false,
          description: `Features per page: default ${ITEMS_LIMIT.default}; a larger value than ${ITEMS_LIMIT.max} is read as ${ITEMS_LIMIT.max}.`,
          schema: { type: 'integer', minimum: 1, maximum: ITEMS_LIMIT.max, default: ITEMS_LIMIT.default },
        },
        bbox: {
          name: 'bbox', in: 'query', required: false, style: 'form', explode: false,
          description: 'west,south,east,north in WGS 84 degrees (CRS84); west > east crosses the antimeridian. Edges included.',
          schema: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
        },
        datetime: {
          name: 'datetime', in: 'query', required: false, style: 'form', explode: false,
          description: `On ${DATETIME_FIELD} (on location-summaries, LatestDate): an RFC 3339 date or date-time (its UTC day), or an interval start/end with .. for an open end.`,
          schema: { type: 'string' },
        },
        filter: {
          name: 'filter', in: 'query', required: false, style: 'form', explode: false,
          description: "A CQL2 filter (OGC API – Features Part 3), e.g. CharacteristicName = 'pH' AND S_INTERSECTS(geometry, POLYGON((-80 43,-79 43,-79 44,-80 43))); the queryables are its properties, geometry the feature's point (S_WITHIN, S_DISJOINT, DWITHIN(geometry, POINT(…), 10, kilometers), …).",
          schema: { type: 'string' },
        },
        'filter-lang': {
          name: 'filter-lang', in: 'query', required: false, style: 'form', explode: false,
          description: 'The language of filter: cql2-text (the default) or cql2-json.',
          schema: { type: 'string', enum: ['cql2-text', 'cql2-json'], default: 'cql2-text' },
        },
        'filter-crs': {
          name: 'filter-crs', in: 'query', required: false, style: 'form', explode: false,
          description: "The CRS of filter's coordinates: only CRS84 (WGS 84 longitude, latitude).",
          schema: { type: 'string', enum: ['http://www.opengis.net/def/crs/OGC/1.3/CRS84'], default: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84' },
        },
        properties: {
          name: 'properties', in: 'query', required: false, style: 'form', explode: false,
          description: 'The properties to return, comma-separated (the geometry and id always come).',
          schema: { type: 'array', items: { type: 'string' } },
        },
        publication: PIN_PARAMETER_DOC,
        f: {
          name: 'f', in: 'query', required: false, style: 'form', explode: false,
          description: 'The encoding: json (the default; GeoJSON for items and features) or html (a page for a browser, with a map). Without f, an Accept that ranks text/html above JSON (a browser) gets html.',
          schema: { type: 'string', enum: ['json', 'html'] },
        },
        cursor: {
          name: 'cursor', in: 'query', required: false, style: 'form', explode: false,
          description: 'Where the next page starts: set by the next link; follow it rather than building it.',
          schema: { type: 'string' },
        },
      },
      responses: {
        Error: json('{code, description}: what was wrong and how to fix it (and the API\'s own message and errors members).', {
          type: 'object', required: ['code', 'description'], properties: { code: { type: 'string' }, description: { type: 'string' } },
        }),
      },
    },
  };
}

/**
 * OpenAPI for the landing pages and the harvesters' documents (issue 41, pages/register-pages.ts): a page per
 * dataset and per location, the DCAT catalogue, the locations as NDJSON-LD, the sitemap and robots.txt. They sit
 * outside /v1 and need no key (`security: []`). The paths are http/paths.ts's.
 */
import { PATHS } from '../http/paths.js';

type Schema = Record<string, unknown>;

const etag = { ETag: { description: 'W/"<publication id>": If-None-Match answers 304 until the next publication.', schema: { type: 'string' } } };

/** The paths, with the error responses `errors(statuses)` gives for each. */
export function pagePaths(errors: (only?: readonly number[]) => Record<string, unknown>): Record<string, Schema> {
  const op = (operationId: string, summary: string, description: string, content: Record<string, Schema>, statuses: readonly number[], parameters: Schema[] = []) => ({
    get: {
      operationId, summary, description, tags: ['Linked data'], security: [], parameters,
      responses: { 200: { description: summary, headers: etag, content }, 304: { description: 'Not modified (If-None-Match).' }, ...errors(statuses) },
    },
  });
  const text = (media: string) => ({ [media]: { schema: { type: 'string' } } });
  return {
    [`${PATHS.datasetPages}/{doi}`]: op(
      'getDatasetPage', "A dataset's landing page: HTML with schema.org Dataset JSON-LD.",
      'Name, abstract, organisations, licence, citation, coverage with a map, characteristics with exact counts, locations, files with sizes and SHA-256, and links to the API, the export, OGC API – Features and the explorer. Another letter case of a known DOI answers 308 to its page.',
      { ...text('text/html'), 'application/ld+json': { schema: { type: 'object', description: 'The JSON-LD the page embeds, alone, when Accept prefers it to text/html.' } } }, [404, 500, 503],
      [{ name: 'doi', in: 'path', required: true, description: 'The DOI with its slash kept, as doi.org writes it: /datasets/10.25976/abcd-ef12.', schema: { type: 'string' } }],
    ),
    [`${PATHS.locationPages}/{id}`]: op(
      'getLocationPage', "A monitoring location's landing page: HTML with Geoconnex-style JSON-LD (schema:Place, hyf:HY_HydrometricFeature, hyf:HY_HydroLocation).",
      'Where it is (geo and a GeoSPARQL point), what was measured there with exact counts and when, subjectOf the dataset it belongs to.',
      { ...text('text/html'), 'application/ld+json': { schema: { type: 'object', description: 'The JSON-LD the page embeds, alone, when Accept prefers it to text/html.' } } }, [404, 500, 503],
      [{ name: 'id', in: 'path', required: true, description: 'The location\'s Id (Locations.Id).', schema: { type: 'integer', minimum: 1 } }],
    ),
    [PATHS.catalogue]: op(
      'getCatalogue', 'The DCAT (DCAT-AP 3) catalogue of every dataset with its distributions, by Accept.',
      `${PATHS.catalogueJsonLd} and ${PATHS.catalogueTurtle} name a format; here Accept chooses (default JSON-LD; 406 for neither).`,
      { 'application/ld+json': { schema: { type: 'object' } }, ...text('text/turtle') }, [406, 500, 503],
    ),
    [PATHS.catalogueJsonLd]: op('getCatalogueJsonLd', 'The DCAT catalogue as JSON-LD (inline @context).', 'The same triples as the Turtle.', { 'application/ld+json': { schema: { type: 'object' } } }, [500, 503]),
    [PATHS.catalogueTurtle]: op('getCatalogueTurtle', 'The DCAT catalogue as Turtle.', 'The same triples as the JSON-LD.', text('text/turtle'), [500, 503]),
    [PATHS.locationsDump]: op(
      'getLocationsDump', 'Every monitoring location as NDJSON-LD: one JSON-LD document per line, in Id order, streamed.',
      'Each line is what the location\'s page embeds (its own inline @context), without the dates; for harvesters such as Geoconnex.',
      text('application/x-ndjson'), [500, 503],
    ),
    [PATHS.sitemap]: op(
      'getSitemap', 'sitemap.xml of every landing page (datasets, then locations).',
      'Over 50,000 URLs it is a sitemap index of /sitemap-1.xml, /sitemap-2.xml, …, each of at most 50,000.',
      text('application/xml'), [500, 503],
    ),
    [PATHS.robots]: { get: { operationId: 'getRobots', summary: 'robots.txt: the sitemap, and the keyed API (/v1/) kept from crawlers.', tags: ['Linked data'], security: [], responses: { 200: { description: 'robots.txt', content: text('text/plain') } } } },
  };
}

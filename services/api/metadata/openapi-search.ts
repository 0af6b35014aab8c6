/**
 * OpenAPI for the dataset search (issue 56 item 4, routes/search.ts): its parameters and answer.
 */
import { PATHS } from '../http/paths.js';
import { SEARCH_TEXT, SEARCH_TOP } from '../exec/search.js';

type Schema = Record<string, unknown>;
const text = (description: string) => ({ type: ['string', 'null'], description });
const strings = (description: string) => ({ type: ['array', 'null'], items: { type: 'string' }, description });

export const SEARCH_SCHEMAS: Record<string, Schema> = {
  FoundDataset: {
    type: 'object',
    required: ['Id', 'DOI', 'DatasetName', 'Licence', 'DataCollectionOrganization', 'DataUploadOrganization', 'Keywords', 'TemporalExtent', 'Bbox', 'Score'],
    properties: {
      Id: { type: 'string', format: 'uuid', description: 'As in /Metadata.' },
      DOI: { type: 'string', description: 'As in /Metadata; cite it as https://doi.org/<DOI>.' },
      DatasetName: text('As in /Metadata.'),
      Licence: text('As in /Metadata.'),
      DataCollectionOrganization: text('As in /Metadata.'),
      DataUploadOrganization: text('As in /Metadata.'),
      Keywords: strings('As in /Metadata.'),
      TemporalExtent: strings('First and last ActivityStartDate (YYYY-MM-DD).'),
      Bbox: { type: ['array', 'null'], items: { type: 'number' }, minItems: 4, maxItems: 4, description: '[west, south, east, north] of its locations, WGS 84 degrees.' },
      Score: { type: 'integer', minimum: 0, description: 'What ranked it: 4 for each word in its name, 2 in its keywords, 1 in its organisations (a word only in its abstract counts 0).' },
    },
  },
  DatasetSearch: {
    type: 'object',
    required: ['publication', 'text', 'filter', 'matched', 'value'],
    properties: {
      publication: text('The publication searched.'),
      text: { type: 'string', description: 'The words searched, as given.' },
      filter: text('The $filter, as canonical OData text; null when none.'),
      matched: { type: 'integer', minimum: 0, description: 'Every dataset that matches; value lists the best $top of them.' },
      value: { type: 'array', items: { $ref: '#/components/schemas/FoundDataset' } },
    },
  },
};

/** `${PATHS.datasetSearch}`, with the error responses `errors(statuses)` gives. */
export function searchPaths(errors: (only?: readonly number[]) => Record<string, unknown>): Record<string, Schema> {
  return {
    [PATHS.datasetSearch]: {
      get: {
        operationId: 'searchDatasets',
        summary: 'The datasets whose name, abstract, keywords or organisations hold every word of text, ranked: a word in the name first, then keywords, then organisations, then the abstract; then by DOI.',
        description:
          'Words match as parts of words, case aside (`ammon` finds Ammonia). Read from an index built at each publish, in one query: it takes a query slot and costs the datasets it lists from the rows budget, as a page does. ' +
          `$filter is a Metadata filter ("has such an observation"): RegionId eq 'hub.pacific', CharacteristicName eq 'pH', …. Other query options are 400. MCP's search_datasets is this request.`,
        tags: ['Data'],
        parameters: [
          { name: 'text', in: 'query', description: `Words separated by spaces (at most ${SEARCH_TEXT.maxWords}, ${SEARCH_TEXT.maxChars} characters); none lists every dataset.`, schema: { type: 'string', maxLength: SEARCH_TEXT.maxChars } },
          { name: '$filter', in: 'query', description: `A filter over Metadata, as on ${PATHS.odata}/Metadata.`, schema: { type: 'string' } },
          { name: '$top', in: 'query', description: 'Datasets listed.', schema: { type: 'integer', minimum: 1, maximum: SEARCH_TOP.max, default: SEARCH_TOP.default } },
          { $ref: '#/components/parameters/publication' },
        ],
        responses: {
          200: { description: 'The datasets found.', content: { 'application/json': { schema: { $ref: '#/components/schemas/DatasetSearch' } } } },
          304: { description: 'Not modified (If-None-Match: the publication\'s weak ETag).' },
          ...errors([400, 401, 403, 410, 429, 500, 503, 504]),
        },
      },
    },
  };
}

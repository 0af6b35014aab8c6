/**
 * OpenAPI for citing a result (issue 38, routes/citation.ts): one path per resource, its formats from the
 * citation's own table (citation/citation-formats.ts), the JSON document's schema.
 */
import { resources } from '../../../schemas/index.js';
import { CITATION_FORMAT_NAMES, CITATION_FORMATS, DEFAULT_CITATION_FORMAT } from '../citation/citation-formats.js';
import { PATHS, PIN_PARAM } from '../http/paths.js';

type Schema = Record<string, unknown>;
const str = (description: string, extra: Schema = {}) => ({ type: 'string', description, ...extra });
const text = (description: string) => ({ type: ['string', 'null'], description });
const int = (description: string) => ({ type: 'integer', minimum: 0, description });
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({ type: 'object', required, properties });

export const CITATION_SCHEMAS: Record<string, Schema> = {
  CitedDataset: obj({
    DOI: str('The dataset\'s DOI.'),
    url: str('https://doi.org/<DOI>, percent-encoded as the cite-as link is.', { format: 'uri' }),
    DatasetName: text('As in /Metadata.'),
    Version: text('As in /Metadata.'),
    Citation: str('The dataset\'s own Citation, or one written from its organisation, year, name, version and DOI link when it has none.'),
    Licence: text('As in /Metadata.'),
    LicenceUrl: text('The licence\'s URL when the Licence is a URL or a licence this API knows by name (CC BY 4.0, ODC-By, CC0, ODbL, PDDL, OGL-Canada).'),
    DataCollectionOrganization: text('The organisation credited as author (DataUploadOrganization when there is none).'),
    DataStewardEmail: text('As in /Metadata.'),
    PublishedTimestamp: text('When the dataset was published, else created (UTC).'),
    Rows: int('The rows of the cited result that come from this dataset.'),
  }),
  Citation: obj({
    resource: str('The resource cited.'),
    filter: text('The $filter cited (with $apply\'s filter() joined by `and`), canonical OData text; null for every row.'),
    publication: text('The publication the rows were counted in.'),
    url: str(`The query itself pinned to that publication: ${PATHS.odata}/<resource>?$filter=…&${PIN_PARAM}=<id>.`, { format: 'uri' }),
    rows: int('The rows of the result: the sum of the datasets\' Rows (on Guidelines, of the guidelines\').'),
    datasets: { type: 'array', items: { $ref: '#/components/schemas/CitedDataset' }, description: 'Every dataset with rows in the result, by DOI.' },
    guidelines: {
      type: 'array',
      items: { $ref: '#/components/schemas/CitedGuideline' },
      description: 'On Guidelines and GuidelineComparisons only: each guideline publisher and source the rows rest on.',
    },
  }, ['resource', 'filter', 'publication', 'url', 'rows', 'datasets']),
  CitedGuideline: obj({
    Publisher: str('The guideline\'s publisher, as in /Guidelines.'),
    Source: text('The URL of the publisher\'s document, as in /Guidelines.'),
    Rows: int('The rows of the cited result that rest on guidelines of this publisher and source.'),
  }),
};

/** `${PATHS.citation}/{resource}` for every resource, with the error responses `errors(statuses)` gives. */
export function citationPaths(errors: (only?: readonly number[]) => Record<string, unknown>): Record<string, Schema> {
  const formats = CITATION_FORMAT_NAMES.map((f) => `${f} (${CITATION_FORMATS[f].mediaType})`).join(', ');
  return Object.fromEntries(resources.map((r) => [`${PATHS.citation}/${r.name}`, {
    get: {
      operationId: `cite${r.name}`,
      summary: `What to credit for the ${r.name} a $filter matches: every dataset with rows in it, with its DOI, citation, licence and rows.`,
      description:
        `The same $filter as ${PATHS.odata}/${r.name} (the same parser and planner, the same 400s)${r.apply !== 'none' ? ", $apply's filter() included" : ''}; ` +
        '$select, $top, $skiptoken and $count are ignored, so any page\'s URL can be cited whole. ' +
        `Negotiated as doi.org negotiates: Accept, or format= (also $format=) for a link: ${formats}. Without either, or with */*, ${DEFAULT_CITATION_FORMAT}; anything else is 406. ` +
        'Pages, exports and OGC items link here as `rel="describedby"`.',
      tags: ['Data'],
      parameters: [
        { name: '$filter', in: 'query', description: `The filter of the query to cite, as on ${PATHS.odata}/${r.name}.`, schema: { type: 'string' } },
        { name: 'format', in: 'query', description: `${CITATION_FORMAT_NAMES.join(', ')} (or their media types); before Accept.`, schema: { type: 'string', enum: CITATION_FORMAT_NAMES } },
      ],
      responses: {
        200: {
          description: 'The citation.',
          headers: {
            Link: { description: '`rel="cite-as"` when the filter pins one DOI; `rel="license"` when every dataset cited has one licence with a known URL.', schema: { type: 'string' } },
          },
          content: Object.fromEntries(CITATION_FORMAT_NAMES.map((f) => [
            CITATION_FORMATS[f].mediaType,
            f === 'json' ? { schema: { $ref: '#/components/schemas/Citation' } } : { schema: { type: f === 'csl' ? 'array' : 'string', description: CITATION_FORMATS[f].description } },
          ])),
        },
        304: { description: 'Not modified (If-None-Match: the publication\'s weak ETag).' },
        ...errors([400, 401, 403, 404, 406, 429, 500, 503, 504]),
      },
    },
  }]));
}

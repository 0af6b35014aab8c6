/**
 * The OpenAPI 3.1 description of the data API, generated from the same catalogue, error table and limits the
 * code uses, so it cannot drift from what the server answers.
 */
import { filterNames, nullOnWire, resources, type ApplyDoor, type FieldDef, type FieldType, type ResourceDef } from '../../../schemas/index.js';
import { API_ERROR_CODES } from '../errors.js';
import { BUDGET_UNITS } from '../limits/budgets.js';
import { FORMAT_NAMES, FORMATS } from '../formats.js';
import { AGGREGATE_METHODS, FILTER_LIMITS, ODATA_ERROR_CODES, TOP_RANGE } from '../odata/index.js';
import { DEFAULT_TOP } from '../query/plan.js';
import { measuresOf } from '../query/measures.js';
import { APPLY_LIMITS, DEFAULT_MAX_APPLY_GROUPS } from '../query/apply-limits.js';
import { PLAN_ERROR_CODES } from '../query/plan-error.js';
import { PATHS, PIN_PARAMETER_DOC, PUBLICATION_HEADER } from '../http/paths.js';
import { COUNT_HEADER, DEFAULT_EXPORT_FORMAT, EXPORT_FORMAT_NAMES, EXPORT_FORMATS, EXPORT_RESOURCES } from '../export-formats.js';
import { filterOnlyMeaning, filterOnlyNames } from './csdl.js';
import { DOWNLOAD_SCHEMAS, downloadPaths } from './openapi-downloads.js';
import { CITATION_SCHEMAS, citationPaths } from './openapi-citation.js';
import { pagePaths } from './openapi-pages.js';
import { SEARCH_SCHEMAS, searchPaths } from './openapi-search.js';
import { assistantPaths } from './openapi-assistants.js';

type Schema = Record<string, unknown>;

const JSON_MEDIA = FORMATS.json.mediaType;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const FIELD_SCHEMAS: Readonly<Record<FieldType, Schema>> = {
  uuid: { type: 'string', format: 'uuid' },
  string: { type: 'string' },
  integer: { type: 'integer', format: 'int64' },
  number: { type: 'number', format: 'double' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  // JSON Schema's `time` format demands a UTC offset; these are local wall-clock times.
  time: { type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}$' },
  timestamp: { type: 'string', format: 'date-time' },
  'string[]': { type: 'array', items: { type: 'string' } },
  'date[]': { type: 'array', items: { type: 'string', format: 'date' } },
  'integer[]': { type: 'array', items: { type: 'integer', format: 'int64' } },
};

export function fieldSchema(field: FieldDef): Schema {
  const base = FIELD_SCHEMAS[field.type];
  const type = nullOnWire(field) ? [base['type'], 'null'] : base['type'];
  return { ...base, type, description: field.description };
}

function entitySchema(resource: ResourceDef): Schema {
  return {
    type: 'object',
    description: `${resource.description} With $select, only the selected fields are present.`,
    properties: Object.fromEntries(resource.fields.map((f) => [f.name, fieldSchema(f)])),
    additionalProperties: false,
  };
}

/** An OData collection response: `@odata.context`, the `value` array and, when paged, `@odata.nextLink`. */
function collectionSchema(items: Schema, opts: { context?: string; paged: boolean; valueDescription?: string }): Schema {
  return {
    type: 'object',
    required: ['@odata.context', 'value'],
    properties: {
      '@odata.context': { type: 'string', format: 'uri', ...(opts.context ? { description: opts.context } : {}) },
      value: { type: 'array', ...(opts.valueDescription ? { description: opts.valueDescription } : {}), items },
      ...(opts.paged ? { '@odata.nextLink': { type: 'string', format: 'uri', description: 'The next page; absent on the last page.' } } : {}),
    },
  };
}

function pageSchema(resource: ResourceDef): Schema {
  const page = collectionSchema(ref(resource.entityType), {
    context: `…${PATHS.odata}/$metadata#${resource.name}, or #${resource.name}(F1,F2) with $select.`,
    paged: true,
  });
  const count = { type: 'integer', minimum: 0, description: 'With $top=0&$count=true (an empty page): every matching row.' };
  return { ...page, properties: { ...(page['properties'] as Record<string, Schema>), '@odata.count': count } };
}

/** What a 429 means: each kind of request has a budget of its own per key (middleware/access.ts, docs/api.md). */
const BUDGETS =
  `Each kind of request has a budget of its own per key (per address without keys), each counted in its unit: pages, counts, aggregates, OGC items, citations and exports PAGE_ROWS_PER_SECOND ${BUDGET_UNITS.rows} per second with bursts of PAGE_ROWS_BURST ${BUDGET_UNITS.rows} (a request costs the rows it returns, at least PAGE_MIN_ROWS; an export PAGE_MIN_ROWS) and MAX_CONCURRENT_PER_KEY in flight (exports also MAX_CONCURRENT_EXPORTS); ` +
  `discovery documents (landing pages, conformance, collections, queryables, $metadata, OpenAPI, the downloads index and manifest, llms.txt, an MCP message) DISCOVERY_RATE_LIMIT_RPS ${BUDGET_UNITS.discovery} per second, never the pages' budget; ` +
  `dataset files FILE_BYTES_PER_SECOND ${BUDGET_UNITS['file-bytes']} per second with bursts of FILE_BYTES_BURST, and MAX_CONCURRENT_FILE_READS in flight, never a request rate. A request that would fit within RATE_LIMIT_MAX_WAIT_MS is held back until it does instead of refused; beyond that 429 with Retry-After.`;

/** Every status the API answers with an error body, with the stable codes that produce it. */
function errorResponses(): Record<string, unknown> {
  const byStatus = new Map([...Map.groupBy(Object.entries(API_ERROR_CODES), ([, status]) => status)].map(([status, entries]) => [status, entries.map(([code]) => code)]));
  const summaries: Readonly<Record<string, { summary: string }>> = { ...ODATA_ERROR_CODES, ...PLAN_ERROR_CODES };
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [
      String(status),
      {
        description: `Codes: ${codes.map((c) => (summaries[c] ? `\`${c}\` (${summaries[c].summary})` : `\`${c}\``)).join('; ')}.${status === 429 ? ` ${BUDGETS}` : ''}`,
        ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before retrying.' } } } : {}),
        ...(status === 405 ? { headers: { Allow: { schema: { type: 'string' }, description: 'GET, HEAD, OPTIONS' } } } : {}),
        content: { [JSON_MEDIA]: { schema: ref('Error') } },
      },
    ]),
  );
}

const errorRefs = (only?: readonly number[]) =>
  Object.fromEntries(
    Object.keys(errorResponses())
      .filter((s) => !only || only.includes(Number(s)))
      .map((s) => [s, { $ref: `#/components/responses/Error${s}` }]),
  );

/** What a query can fail with: every status but 416, which only a dataset file's Range gets, and 415 and 408 (bodies only). */
const QUERY_ERRORS = [...new Set(Object.values(API_ERROR_CODES))].filter((s) => s !== 416 && s !== 415 && s !== 408);

/** What a discovery document can fail with: no query options, so none of the 400s. */
const DISCOVERY_ERRORS = [401, 403, 429, 500, 503] as const;

/** `GET …/{resource}/$count` (OData 4.01 Part 2 §4.8): the count of the collection's `$filter`, as a plain-text number. */
function countOperation(resource: ResourceDef): Schema {
  const params = collectionOperation(resource)['parameters'] as Schema[];
  return {
    operationId: `count${resource.name}`,
    summary: `The number of ${resource.name} rows $filter matches, as text/plain (OData's /$count).`,
    description:
      'The same count as $count=true (and @odata.count), read from one publication, its weak ETag answered with 304. ' +
      'Only $filter applies: $top, $skip, $orderby, $select, $skiptoken, $count, $apply, $format and any other $ option are 400 unsupported_option. HEAD is answered too.',
    tags: ['Data'],
    parameters: params.filter((p) => p['name'] === '$filter' || p['$ref'] === '#/components/parameters/publication'),
    responses: {
      200: {
        description: 'The number of matching rows, digits only.',
        headers: { [PUBLICATION_HEADER]: { $ref: '#/components/headers/Publication' } },
        content: { 'text/plain': { schema: { type: 'string', pattern: '^[0-9]+$' }, example: '1234' } },
      },
      ...errorRefs(QUERY_ERRORS),
    },
  };
}

/** `POST …/{resource}/$query`: the GET operation's options in a text/plain body, for filters too long for a URL. */
function queryInBodyOperation(resource: ResourceDef): Schema {
  const get = collectionOperation(resource);
  return {
    operationId: `query${resource.name}`,
    summary: `${resource.name} with the query options in the body (OData 4.01 §11.2.5.x), for a filter too long for a URL.`,
    description: 'The body holds what would follow ? in a GET (encoded as in a URL), at most MAX_BODY_BYTES (413 beyond), arriving whole within BODY_TIMEOUT_MS at BODY_MIN_BYTES_PER_SECOND or faster (408 otherwise); options in the URL are combined with it, each at most once. Answered exactly as the GET.',
    tags: ['Data'],
    requestBody: { required: true, content: { 'text/plain': { schema: { type: 'string' }, example: "$filter=geo.intersects(Location,geography'SRID=4326;POLYGON((-120 49,-110 49,-110 60,-120 49))')&$top=100" } } },
    responses: { ...(get['responses'] as Schema), ...errorRefs([408, 415]) },
  };
}

/** `$apply` as the resource's `apply` door declares it. */
function applyParameter(resource: ResourceDef, door: ApplyDoor): Schema {
  const measures = measuresOf(resource).map((m) => m.name);
  const statistics = door.statistics.map((s) => `${s.methods.join(', ')} of ${s.measure}`).join('; ');
  return {
    name: '$apply', in: 'query',
    description:
      `[filter(…)/]groupby((F1,…)[,aggregate(…)])[/orderby(Column [desc],…)][/top(n)] or [filter(…)/]aggregate(…); each aggregate is $count as Alias or Field with method as Alias. ` +
      `Group by (at most ${APPLY_LIMITS.maxGroupingFields} at once): ${door.groupBy.join(', ')}. Aggregate: ${measures.join(', ') || 'only $count'}, with ${AGGREGATE_METHODS.join(', ')} ` +
      `(Tributary.p10/p90/median: exact percentiles by linear interpolation, Hyndman & Fan type 7; Tributary.countnull: rows without a value, the non-detects of ResultValue)` +
      `${door.distinct.length ? `; countdistinct also counts ${door.distinct.join(', ')}` : ''}. At most ${APPLY_LIMITS.maxHolisticAggregates} holistic aggregates (medians, percentiles, countdistinct) per request; one estimated (each grouped field's values multiplied, capped by the rows it reads) to make more groups than MAX_APPLY_GROUPS (${DEFAULT_MAX_APPLY_GROUPS} by default) is refused before it runs; past a limit, 400 apply_too_large. An $apply costs the rate limit the rows it reads ÷ APPLY_ROWS_READ_PER_ROW, at least its groups. ` +
      `orderby sorts the groups by grouped fields or aliases and top(n) keeps the first n, paged by $top. ` +
      `Values in more than one unit are a 400 mixed_units unless the unit is grouped. Counts come from statistics where they hold every field${statistics ? `, and ${statistics}` : ''}; the rest read the rows.`,
    schema: { type: 'string' },
    example: resource.kind === 'observations'
      ? 'groupby((CharacteristicName,ResultUnit),aggregate($count as Count,ResultValue with average as Mean,ResultValue with Tributary.median as Median))'
      : `groupby((${door.groupBy[0]}),aggregate($count as Count))/orderby(Count desc)/top(10)`,
  };
}

function collectionOperation(resource: ResourceDef): Schema {
  const door = resource.apply === 'none' ? undefined : resource.apply;
  const selectable = resource.fields.filter((f) => f.selectable).map((f) => f.name);
  const keyType = resource.fields.find((f) => f.name === resource.key)?.type;
  const filterOnly = filterOnlyNames(resource);
  const parameters: Schema[] = [
    {
      name: '$select', in: 'query', style: 'form', explode: false,
      description: 'Fields to return, comma-separated; the response keeps catalogue order. Default: every field.',
      schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: selectable } },
    },
    {
      name: '$filter', in: 'query',
      description:
        `OData filter: eq ne lt gt le ge (and DataStream's lte gte), in (…), and or not, parentheses, startswith/endswith/contains on text, null, ` +
        `and over each row's location point (named Location): geo.intersects(Location,geography'SRID=4326;POLYGON((…))') and geo.distance(Location,geography'SRID=4326;POINT(lon lat)') le <metres>. ` +
        `Names: ${filterNames(resource).join(', ')}.` +
        (filterOnly.length ? ` Of these, ${filterOnly.join(', ')} are not fields of ${resource.name}.${filterOnlyMeaning(resource)}` : '') +
        ` Limits: nesting ${FILTER_LIMITS.maxDepth}, ${FILTER_LIMITS.maxInValues} values per in list, ${FILTER_LIMITS.maxTerms} conditions.`,
      schema: { type: 'string' },
      example: resource.kind === 'observations' ? "CharacteristicName eq 'pH' and ActivityStartYear ge 2020" : "DOI eq '10.25976/abcd-ef12'",
    },
    { $ref: '#/components/parameters/top' },
    {
      name: '$skiptoken', in: 'query',
      description: 'Page cursor; take it from @odata.nextLink rather than building it.',
      schema: { type: 'string', pattern: keyType === 'uuid' ? '^Id:[0-9A-Fa-f-]{36}$' : '^Id:\\d+$' },
    },
    { $ref: '#/components/parameters/count' },
    ...(door ? [applyParameter(resource, door)] : []),
    { $ref: '#/components/parameters/format' },
    { $ref: '#/components/parameters/publication' },
  ];
  const jsonShapes = [ref(`${resource.entityType}Page`), ref('Count'), ...(door ? [ref('ApplyPage')] : [])];
  return {
    operationId: `get${resource.name}`,
    summary: resource.description,
    description: 'Results are in Id order; follow @odata.nextLink or the `rel="next"` Link. HEAD is answered too. $orderby, $skip, $expand and unknown $ options are 400.',
    tags: ['Data'],
    parameters,
    responses: {
      200: {
        description: 'A page of rows, a count ($count=true) or groups ($apply).',
        headers: { Link: { $ref: '#/components/headers/Link' }, [PUBLICATION_HEADER]: { $ref: '#/components/headers/Publication' } },
        content: Object.fromEntries(
          FORMAT_NAMES.map((f) => [
            FORMATS[f].mediaType,
            f === 'json' ? { schema: { oneOf: jsonShapes } } : { schema: { type: 'string', ...(f === 'arrow' ? { contentEncoding: 'binary' } : {}), description: FORMATS[f].description } },
          ]),
        ),
      },
      ...errorRefs(QUERY_ERRORS),
    },
  };
}

const INFO_DESCRIPTION = [
  'Open water-quality monitoring data in the DataStream schema, as a read-only OData v4 JSON API compatible with the public DataStream API and its clients.',
  '',
  '**Citation and licence.** Every dataset carries its `DOI`, `Citation` and `Licence` in `/Metadata` ' +
    `(\`${PATHS.odata}/Metadata?$select=DOI,DatasetName,Citation,Licence\`). Cite a dataset as \`https://doi.org/<DOI>\`; ` +
    'a response whose `$filter` pins one DOI (`DOI eq \'…\'` as a top-level `and` term) carries `Link: <https://doi.org/…>; rel="cite-as"` after any `rel="next"` link. ' +
    `To cite a whole result, \`${PATHS.citation}/<resource>?$filter=…\` lists every dataset it comes from with its rows, as JSON, CSL-JSON, BibTeX, RIS or text.`,
  '',
  `OData discovery: service document \`${PATHS.odata}/\`, CSDL \`${PATHS.odata}/$metadata\`.`,
  '',
  `**Bulk downloads.** \`${PATHS.downloads}\` lists every dataset's Records as Parquet and CSV files (sizes, SHA-256, DOI, licence, citation), ` +
    'with a manifest of every Parquet file to read the hub as one table and a change feed of publications to follow it.',
].join('\n');

/** The document for a server reachable at `serverUrl` (scheme and host, no path). */
/** `/v1/export/{Records|Observations}`: the whole result of a filter in one response (routes/export.ts). */
function exportOperation(resource: ResourceDef): Schema {
  const page = collectionOperation(resource);
  const pageParams = page['parameters'] as Schema[];
  const selectAndFilter = pageParams.filter((p) => p['name'] === '$select' || p['name'] === '$filter');
  return {
    operationId: `export${resource.name}`,
    summary: `Every ${resource.name} row a $filter/$select matches, in one streamed response.`,
    description:
      `No paging: $top, $skiptoken, $count and $apply are 400. Rows in Id order. ${COUNT_HEADER} gives the exact row count before the first byte; ` +
      'HEAD answers the headers alone. A failure after the first byte aborts the connection (an incomplete chunked transfer), never a short file. ' +
      'One request against the rate limit; at most MAX_CONCURRENT_EXPORTS per key at once (429 beyond).',
    tags: ['Data'],
    parameters: [
      ...selectAndFilter,
      {
        name: '$format', in: 'query',
        description: `${EXPORT_FORMAT_NAMES.join(', ')} (or their media types); without it, Accept chooses (${EXPORT_FORMAT_NAMES.map((f) => EXPORT_FORMATS[f].mediaType).join(', ')}), else ${DEFAULT_EXPORT_FORMAT}.`,
        schema: { type: 'string', enum: EXPORT_FORMAT_NAMES, default: DEFAULT_EXPORT_FORMAT },
      },
      PIN_PARAMETER_DOC,
    ],
    responses: {
      200: {
        description: 'The whole result.',
        headers: {
          [COUNT_HEADER]: { description: 'Rows in the body, exact.', schema: { type: 'integer', minimum: 0 } },
          [PUBLICATION_HEADER]: { $ref: '#/components/headers/Publication' },
          'Content-Disposition': { description: `attachment; filename="${resource.name}.<extension>"`, schema: { type: 'string' } },
        },
        content: Object.fromEntries(EXPORT_FORMAT_NAMES.map((f) => [EXPORT_FORMATS[f].mediaType, { schema: { type: 'string', format: 'binary', description: EXPORT_FORMATS[f].description } }])),
      },
      ...errorRefs(QUERY_ERRORS),
    },
  };
}

export function buildOpenApi(serverUrl: string): Schema {
  const discovery = (operationId: string, summary: string, media: string, schema: Schema) => ({
    get: { operationId, summary, tags: ['Discovery'], responses: { 200: { description: summary, content: { [media]: { schema } } }, ...errorRefs(DISCOVERY_ERRORS) } },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'Tributary data API', version: '1', description: INFO_DESCRIPTION },
    servers: [{ url: serverUrl }],
    security: [{ ApiKey: [] }],
    tags: [{ name: 'Data' }, { name: 'Downloads' }, { name: 'Discovery' }, { name: 'Linked data' }, { name: 'Assistants' }],
    paths: {
      ...Object.fromEntries(resources.map((r) => [`${PATHS.odata}/${r.name}`, { get: collectionOperation(r) }])),
      ...Object.fromEntries(resources.map((r) => [`${PATHS.odata}/${r.name}/$query`, { post: queryInBodyOperation(r) }])),
      ...Object.fromEntries(resources.map((r) => [`${PATHS.odata}/${r.name}/$count`, { get: countOperation(r) }])),
      ...Object.fromEntries(resources.filter((r) => (EXPORT_RESOURCES as readonly string[]).includes(r.name)).map((r) => [`${PATHS.export}/${r.name}`, { get: exportOperation(r) }])),
      ...downloadPaths(errorRefs),
      ...citationPaths(errorRefs),
      ...searchPaths(errorRefs),
      ...pagePaths(errorRefs),
      ...assistantPaths(errorRefs),
      [`${PATHS.odata}/`]: discovery('getServiceDocument', `OData service document (also at ${PATHS.odata} without the slash).`, JSON_MEDIA, ref('ServiceDocument')),
      [`${PATHS.odata}/$metadata`]: discovery('getMetadataDocument', 'OData CSDL XML (4.0) with Capabilities annotations.', 'application/xml', { type: 'string' }),
      [PATHS.openapi]: discovery('getOpenApi', 'This document.', JSON_MEDIA, { type: 'object' }),
      '/': discovery('getDocsPage', 'Human documentation with examples, citation and licence.', 'text/html', { type: 'string' }),
      '/healthz': discovery('getHealth', 'Liveness.', JSON_MEDIA, { type: 'object', properties: { status: { const: 'ok' } } }),
      '/readyz': discovery('getReady', 'Readiness: the database answers; `publication` is the id of the publication served.', JSON_MEDIA, { type: 'object', properties: { status: { const: 'ready' }, database: { type: 'string' }, publication: { type: 'string' } } }),
    },
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key, sent on every request as the DataStream clients do.' } },
      parameters: {
        top: { name: '$top', in: 'query', description: 'Rows per page.', schema: { type: 'integer', minimum: TOP_RANGE.min, maximum: TOP_RANGE.max, default: DEFAULT_TOP } },
        publication: PIN_PARAMETER_DOC,
        count: { name: '$count', in: 'query', description: 'true: answer {"value": <number of matching rows>} instead of rows; with $top=0, an empty page with @odata.count.', schema: { type: 'boolean' } },
        format: {
          name: '$format', in: 'query',
          description: `${FORMAT_NAMES.join(', ')} (json is the default; the media types are accepted too). ${FORMAT_NAMES.filter((f) => FORMATS[f].byAccept).map((f) => `Accept: ${FORMATS[f].mediaType}`).join(' or ')} does the same as $format.`,
          schema: { type: 'string', enum: FORMAT_NAMES },
        },
      },
      headers: {
        Publication: { description: 'The id of the publication the answer was read from (the weak ETag names it too).', schema: { type: 'string' } },
        Link: {
          description:
            'RFC 8288 links: `<next page>; rel="next"` first (datastreamjs reads the first link lazily), then `<https://doi.org/…>; rel="cite-as"` when the filter pins one DOI, ' +
            `\`<${PATHS.citation}/…>; rel="describedby"\` (the citation of the same query and publication, CSL-JSON) on pages, and \`rel="license"\` when the pinned DOI's licence has a known URL.`,
          schema: { type: 'string' },
        },
      },
      responses: Object.fromEntries(Object.entries(errorResponses()).map(([s, r]) => [`Error${s}`, r])),
      schemas: {
        ...Object.fromEntries(resources.map((r) => [r.entityType, entitySchema(r)])),
        ...Object.fromEntries(resources.map((r) => [`${r.entityType}Page`, pageSchema(r)])),
        ...DOWNLOAD_SCHEMAS,
        ...CITATION_SCHEMAS,
        ...SEARCH_SCHEMAS,
        Count: { type: 'object', required: ['value'], properties: { value: { type: 'integer', minimum: 0 } }, additionalProperties: false },
        ApplyPage: collectionSchema(
          { type: 'object', additionalProperties: { type: ['string', 'number', 'null'] } },
          { paged: true, valueDescription: 'One object per group: the grouped fields, then each aggregate under its alias (a number; a date YYYY-MM-DD for min and max of ActivityStartDate; null with no value).' },
        ),
        ServiceDocument: collectionSchema(
          {
            type: 'object',
            required: ['name', 'kind', 'url'],
            properties: { name: { type: 'string' }, kind: { const: 'EntitySet' }, url: { type: 'string' } },
          },
          { paged: false },
        ),
        Error: {
          type: 'object',
          required: ['message', 'errors'],
          description: 'The one error body. message is null only for an undecodable query string (as the public API gateway answers).',
          properties: {
            message: { type: ['string', 'null'] },
            errors: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                required: ['status', 'code', 'detail'],
                properties: {
                  status: { type: 'string', enum: [...new Set(Object.values(API_ERROR_CODES))].sort().map(String) },
                  code: { type: 'string', enum: Object.keys(API_ERROR_CODES) },
                  detail: { type: 'string' },
                  source: {
                    type: 'object',
                    properties: { parameter: { type: 'string' }, offset: { type: 'integer', minimum: 0, description: '0-based position in the decoded parameter value.' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}

/**
 * The MCP tools (issue 49), named as the contract: describe, search_datasets, list_values, count, query, aggregate,
 * cite. Each answers with the API's own requests (api-caller.ts), so its numbers are the API's numbers, its errors
 * the API's messages, and every answer names the publication it was read from and the pinned URL that gives the same
 * answer again. Each returns structured content under its output schema, and a summary with its links as text for
 * clients that read only text (answer-text.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { getResource } from '../../../schemas/index.js';
import { CITATION_FORMATS } from '../citation/citation-formats.js';
import type { CitationDocument } from '../citation/citation-document.js';
import { PATHS } from '../http/paths.js';
import { formatApply, parseApply } from '../odata/index.js';
import { ApiRefusal, type ApiCaller } from './api-caller.js';
import { answerText, type ToolName } from './answer-text.js';
import { describeResource, resourceNames } from './describe-resource.js';
import { governingApply, governingFilter } from './governing-default.js';
import { searchDatasets, searchInput, searchOutput } from './search-datasets.js';
import { MAX_QUERY_ROWS, TOOLS } from './tool-descriptions.js';

/** Groups of one `list_values` or `aggregate` answer; more are a next link. */
export const MAX_GROUPS = 1000;

const resource = z.enum(resourceNames()).describe('A resource of the API (see describe).');
const filter = z.string().max(8000).optional().describe("An OData $filter, e.g. CharacteristicName eq 'pH' and ResultValue gt 9 and RegionId eq 'hub.pacific' and ActivityStartYear ge 2020.");
const publication = z.string().describe('The publication the answer was read from (the API\'s Tributary-Publication header).');
const row = z.record(z.string(), z.unknown());
const note = z.string().optional().describe('What the tool read on your behalf: on GuidelineComparisons, the governing comparisons only unless the filter names Governing.');

const citation = {
  publication,
  rows: z.number().describe('Rows of the result cited.'),
  url: z.string().describe('The cited query, pinned to its publication.'),
  text: z.string().describe('What to credit, as a plain-text list (the API\'s format=text).'),
  csl: z.array(row).describe('CSL-JSON: one dataset item per dataset (the API\'s format=csl).'),
  datasets: z.array(row).describe('Each dataset with rows in the result: DOI, url, name, version, citation, licence, rows.'),
};

type Caller = () => ApiCaller;

/** Registers the seven tools on `server`; `caller()` makes the caller of one tool call. */
export function registerTools(server: McpServer, caller: Caller): void {
  server.registerTool(
    'describe',
    {
      title: 'Describe a resource',
      description: TOOLS.describe,
      inputSchema: { resource },
      outputSchema: {
        resource: z.string(), description: z.string(), key: z.string(), rows: z.number(), publication,
        fields: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean(), description: z.string(), filterable: z.boolean(), onRequest: z.boolean() })),
        filterOnly: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })).describe('Filter names that are not fields of this resource: a finer resource\'s, meaning "has such an observation".'),
        filterable: z.array(z.string()), aggregate: z.boolean(),
        groupBy: z.array(z.string()).describe('What aggregate and list_values group by: the dimensions.'),
        measures: z.array(z.string()).describe('The fields aggregate takes with sum, min, max, average and the percentiles.'),
        countDistinct: z.array(z.string()).describe('Identifiers and dimensions countdistinct counts besides the measures.'),
        export: z.boolean(), ogcCollection: z.string().nullable().describe('Its OGC API – Features collection id, for GIS clients.'),
        files: z.array(z.string()).describe("Formats of each dataset's bulk files of this resource, listed by /v1/downloads."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ resource: name }) =>
      answer('describe', async () => {
        const api = caller();
        const { value } = await api.json<{ value: number }>(`${PATHS.odata}/${name}`, { $count: 'true' });
        return { ...describeResource(getResource(name)!), rows: value, publication: api.publication! };
      }),
  );

  server.registerTool(
    'search_datasets',
    {
      title: 'Search datasets',
      description: TOOLS.search_datasets,
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => answer('search_datasets', () => searchDatasets(caller(), args)),
  );

  server.registerTool(
    'list_values',
    {
      title: 'List the values of a dimension',
      description: TOOLS.list_values,
      inputSchema: { resource, field: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,127}$/).describe("The field to group by: one of the resource's groupBy (see describe)."), filter },
      outputSchema: { resource: z.string(), field: z.string(), publication, values: z.array(z.object({ value: z.unknown(), count: z.number() })), complete: z.boolean(), url: z.string(), next: z.string().optional(), note },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ resource: name, field, filter: given }) =>
      answer('list_values', async () => {
        const api = caller();
        const { filter: f, note: chose } = governingFilter(name, given);
        const params = { $apply: `${f ? `filter(${f})/` : ''}groupby((${field}),aggregate($count as Count))`, $top: String(MAX_GROUPS) };
        const page = await api.json<ODataPage>(`${PATHS.odata}/${name}`, params);
        const values = page.value.map((r) => ({ value: r[field], count: Number(r.Count) }));
        return { resource: name, field, publication: api.publication!, values, ...more(page), url: api.url(`${PATHS.odata}/${name}`, params), ...(chose ? { note: chose } : {}) };
      }),
  );

  server.registerTool(
    'count',
    {
      title: 'Count rows',
      description: TOOLS.count,
      inputSchema: { resource, filter },
      outputSchema: { resource: z.string(), filter: z.string().optional(), count: z.number(), publication, url: z.string(), note },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ resource: name, filter: given }) =>
      answer('count', async () => {
        const api = caller();
        const { filter: f, note: chose } = governingFilter(name, given);
        const params = { $filter: f, $count: 'true' };
        const { value } = await api.json<{ value: number }>(`${PATHS.odata}/${name}`, params);
        return { resource: name, ...(f ? { filter: f } : {}), count: value, publication: api.publication!, url: api.url(`${PATHS.odata}/${name}`, params), ...(chose ? { note: chose } : {}) };
      }),
  );

  server.registerTool(
    'query',
    {
      title: 'Query rows',
      description: TOOLS.query,
      inputSchema: {
        resource, filter,
        select: z.string().max(4000).optional().describe('Fields to return, comma-separated (OData $select); all by default.'),
        top: z.number().int().min(0).max(MAX_QUERY_ROWS).default(100).describe(`Rows to return (at most ${MAX_QUERY_ROWS}).`),
      },
      outputSchema: {
        resource: z.string(), publication, total: z.number(), returned: z.number(), rows: z.array(row),
        url: z.string().describe('The whole result, pinned: page through it by its next links.'),
        next: z.string().optional().describe('The page after these rows.'),
        exports: z.object({ parquet: z.string(), csv: z.string() }).nullable().describe('The whole result in one file (needs an API key); null where the resource has no export.'),
        citation: z.object(citation),
        note,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ resource: name, filter: given, select, top }) =>
      answer('query', async () => {
        const api = caller();
        const { filter: f, note: chose } = governingFilter(name, given);
        const path = `${PATHS.odata}/${name}`;
        const page = await api.json<ODataPage>(path, { $filter: f, $select: select, $top: String(top) });
        const cited = await cite(api, name, f);
        const whole = { $filter: f, $select: select };
        const exports = getResource(name)!.export
          ? { parquet: api.url(`${PATHS.export}/${name}`, { ...whole, $format: 'parquet' }), csv: api.url(`${PATHS.export}/${name}`, { ...whole, $format: 'csv' }) }
          : null;
        const { next } = more(page);
        return { resource: name, publication: api.publication!, total: cited.rows, returned: page.value.length, rows: page.value, url: api.url(path, whole), ...(next ? { next } : {}), exports, citation: cited, ...(chose ? { note: chose } : {}) };
      }),
  );

  server.registerTool(
    'aggregate',
    {
      title: 'Aggregate',
      description: TOOLS.aggregate,
      inputSchema: {
        resource,
        apply: z.string().min(1).max(8000).describe('An OData $apply: [filter(…)/]groupby((F1,…),aggregate($count as Name)).'),
        orderby: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}( (asc|desc))?(,[A-Za-z_][A-Za-z0-9_]{0,127}( (asc|desc))?)*$/).optional()
          .describe("The groups' order by grouped fields or aliases, e.g. 'Count desc' ($apply's orderby)."),
        top: z.number().int().min(0).max(2 ** 31 - 1).optional().describe("At most this many groups in all ($apply's top), e.g. 10."),
        next: z.string().max(16_000).optional().describe('The `next` of an earlier answer: its following groups, from the same publication.'),
      },
      outputSchema: { resource: z.string(), apply: z.string(), publication, groups: z.array(row), complete: z.boolean(), url: z.string(), next: z.string().optional(), note },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ resource: name, apply: given, orderby, top, next }) =>
      answer('aggregate', async () => {
        const api = caller();
        const path = `${PATHS.odata}/${name}`;
        const { apply, note: chose } = governingApply(name, given);
        const whole = `${apply}${orderby ? `/orderby(${orderby})` : ''}${top !== undefined ? `/top(${top})` : ''}`;
        const params = next ? continuation(next, path, whole) : { $apply: whole, $top: String(MAX_GROUPS) };
        const page = await api.json<ODataPage>(path, params);
        return { resource: name, apply: whole, publication: api.publication!, groups: page.value, ...more(page), url: api.url(path, params), ...(chose ? { note: chose } : {}) };
      }),
  );

  server.registerTool(
    'cite',
    {
      title: 'Cite a result',
      description: TOOLS.cite,
      inputSchema: { resource, filter },
      outputSchema: { resource: z.string(), ...citation, note },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ resource: name, filter: given }) =>
      answer('cite', async () => {
        const { filter: f, note: chose } = governingFilter(name, given);
        return { resource: name, ...(await cite(caller(), name, f)), ...(chose ? { note: chose } : {}) };
      }),
  );
}

interface ODataPage {
  readonly value: Record<string, unknown>[];
  readonly '@odata.nextLink'?: string;
}

/**
 * The parameters of a next link handed back: only one this tool gave for the same resource and `$apply` (its cursor
 * and publication are the API's to check), so a tool call reads nothing its arguments did not ask for.
 */
function continuation(next: string, path: string, apply: string): Record<string, string> {
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    throw new ApiRefusal(400, '`next` is not a URL: pass back the `next` of an earlier aggregate answer, unchanged.');
  }
  const params = Object.fromEntries(url.searchParams);
  if (url.pathname !== path || canonical(params['$apply'] ?? '') !== canonical(apply)) {
    throw new ApiRefusal(400, `\`next\` continues another request: pass it back with the resource and apply (and orderby, top) of the answer that gave it.`);
  }
  return params;
}

/** An `$apply` as the API's next links write it (odata/format-apply.ts), or as given when it does not parse. */
function canonical(apply: string): string {
  try {
    return formatApply(parseApply(apply));
  } catch {
    return apply;
  }
}

function more(page: ODataPage): { complete: boolean; next?: string } {
  const next = page['@odata.nextLink'];
  return next ? { complete: false, next } : { complete: true };
}

/** The API's citation document, written as text and CSL-JSON by the API's own formats (citation-formats.ts). */
async function cite(api: ApiCaller, name: string, f: string | undefined) {
  const doc = await api.json<CitationDocument>(`${PATHS.citation}/${name}`, { $filter: f });
  return {
    publication: doc.publication ?? api.publication!,
    rows: doc.rows,
    url: doc.url,
    text: CITATION_FORMATS.text.render(doc),
    csl: JSON.parse(CITATION_FORMATS.csl.render(doc)) as Record<string, unknown>[],
    datasets: doc.datasets as unknown as Record<string, unknown>[],
  };
}

/** The tool's structured answer with its summary as text; the API's refusal as the tool's error, in the API's words. */
async function answer(tool: ToolName, work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    const structuredContent = await work();
    return { structuredContent, content: [{ type: 'text', text: answerText(tool, structuredContent) }] };
  } catch (err) {
    if (err instanceof ApiRefusal) return { isError: true, content: [{ type: 'text', text: err.message }] };
    throw err;
  }
}

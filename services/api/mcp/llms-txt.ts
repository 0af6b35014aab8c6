/**
 * `/llms.txt` and `/llms-full.txt` (the llms.txt convention, https://llmstxt.org): Markdown for an assistant that
 * reads the service before using it. Written from what the service is made of, so they cannot drift from it: the
 * OpenAPI document (its description and every operation), the field catalogue (the resources and their fields), the
 * MCP tools' own descriptions, and the limits this process was started with. Every absolute URL in them is one a GET
 * answers with 200 (the MCP door: one POST), which their test follows.
 */
import { resources } from '../../../schemas/index.js';
import { EXPORT_RESOURCES } from '../export-formats.js';
import { amount, BUDGET_UNITS, budgetRate } from '../limits/budgets.js';
import { baseTemplate, PLACEHOLDER_BASE, templateStream, type BaseTemplate } from '../pages/base-template.js';
import { APPLY_LIMITS } from '../query/apply-limits.js';
import { APPLY_RESOURCES } from '../query/plan-apply.js';
import { encodeValue } from '../http/links.js';
import { PATHS, PIN_PARAM, PUBLICATION_HEADER } from '../http/paths.js';
import { buildOpenApi } from '../metadata/openapi.js';
import { TOP_RANGE } from '../odata/parse-query.js';
import { DEFAULT_TOP } from '../query/plan.js';
import { describeResource } from './describe-resource.js';
import { GOVERNING_FILTER } from './governing-default.js';
import { MAX_QUERY_ROWS, TOOLS } from './tool-descriptions.js';

/** The limits this process applies, as main.ts configured them; left out, that limit is off (tests). */
export interface LlmsFacts {
  readonly keysRequired: boolean;
  /** The pages' budget (rows), and what a request costs at least. */
  readonly rateLimit?: { readonly rps: number; readonly burst: number; readonly minRows?: number | undefined } | undefined;
  /** The discovery documents' budget (requests): llms.txt itself, OpenAPI, $metadata, OGC's documents, /mcp. */
  readonly discoveryRateLimit?: { readonly rps: number; readonly burst: number } | undefined;
  /** The dataset files' budget (bytes). */
  readonly fileBytes?: { readonly bytesPerSecond: number; readonly burst: number } | undefined;
  readonly retentionMs?: number | undefined;
  readonly maxPageBytes?: number | undefined;
  /** MAX_APPLY_GROUPS: an `$apply` estimated past it is refused. */
  readonly maxApplyGroups?: number | undefined;
  readonly queryTimeoutMs?: number | undefined;
}

/** The question the worked examples answer, in the words of the issue that asked for them. */
const EXAMPLE = "CharacteristicName eq 'pH' and ResultValue gt 9 and RegionId eq 'hub.pacific' and ActivityStartYear ge 2020";
/** The same filter in CQL2-Text, for OGC API – Features. */
const CQL2_EXAMPLE = "CharacteristicName = 'pH' AND ResultValue > 9 AND RegionId = 'hub.pacific' AND ActivityStartYear >= 2020";
const QUESTION = 'pH results above 9 in the Pacific hub since 2020';

const link = (title: string, url: string, note: string) => `- [${title}](${url}): ${note}`;
const hours = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 60_000)} min`);
const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

/**
 * The two documents as a route serves them: written once per process with a placeholder origin (they depend on the
 * settings, never on a request or a publication), each answer the pieces with its own base URL between them. Rebuilt
 * per request, each cost the OpenAPI document's construction on the event loop, keyless and unbudgeted.
 */
export function llmsTemplates(facts: LlmsFacts): { readonly llmsTxt: () => BaseTemplate; readonly llmsFullTxt: () => BaseTemplate } {
  let short: BaseTemplate | undefined;
  let full: BaseTemplate | undefined;
  return {
    llmsTxt: () => (short ??= baseTemplate(llmsTxt(PLACEHOLDER_BASE, facts))),
    llmsFullTxt: () => (full ??= baseTemplate(llmsFullTxt(PLACEHOLDER_BASE, facts))),
  };
}

/** A template's text with `base` in every place, streamed. */
export const llmsBody = templateStream;

export function llmsTxt(base: string, facts: LlmsFacts): string {
  return [...head(base, facts), ...doors(base), ...examples(base, facts), ...limits(facts), ...citing(), '## Optional', '', link('llms-full.txt', `${base}${PATHS.llmsFullTxt}`, 'this page, then every operation of the OpenAPI document and every field of every resource.'), ''].join('\n');
}

export function llmsFullTxt(base: string, facts: LlmsFacts): string {
  return [...head(base, facts), ...doors(base), ...examples(base, facts), ...limits(facts), ...citing(), ...fields(), ...operations(base)].join('\n');
}

function head(base: string, facts: LlmsFacts): string[] {
  const info = (buildOpenApi(base) as { info: { title: string; description: string } }).info;
  const [summary, ...rest] = info.description.split('\n\n');
  return [
    '# Tributary',
    '',
    `> ${summary}`,
    '',
    ...rest.flatMap((p) => [p, '']),
    `Every answer is read from one publication and names it (the \`${PUBLICATION_HEADER}\` response header); \`${PIN_PARAM}=<id>\` on any read URL answers from that publication again, so a count, its pages and its citation agree.`,
    facts.keysRequired
      ? 'An API key is required for everything under /v1 and for /mcp: send it as the `x-api-key` header.'
      : 'No API key is required by this instance (when one is, send it as the `x-api-key` header).',
    '',
    '## Resources',
    '',
    ...resources.map((r) => link(r.name, `${base}${PATHS.odata}/${r.name}?$top=10`, r.description)),
    '',
  ];
}

function doors(base: string): string[] {
  const tools = Object.entries(TOOLS).map(([name, what]) => `  - \`${name}\`: ${what}`);
  return [
    '## Doors',
    '',
    link('MCP server', `${base}${PATHS.mcp}`, 'the Model Context Protocol over Streamable HTTP (POST only, stateless, JSON answers), read-only, behind the same keys and limits. Tools:'),
    ...tools,
    link('OData v4', `${base}${PATHS.odata}/`, `the service document; \`${PATHS.odata}/$metadata\` is the CSDL. Compatible with the DataStream API and its clients.`),
    link('Dataset search', `${base}${PATHS.datasetSearch}?text=river`, 'the datasets whose name, abstract, keywords or organisations hold every word of `text`, ranked, with their extent and licence; `$filter` narrows by region or characteristic. MCP: `search_datasets`.'),
    link('OpenAPI 3.1', `${base}${PATHS.openapi}`, 'every operation with its parameters and errors.'),
    link('OGC API – Features', `${base}${PATHS.features}`, 'GeoJSON for GIS clients (QGIS, GDAL, R sf, geopandas), with CQL2 filters.'),
    link('Bulk downloads', `${base}${PATHS.downloads}`, 'every dataset as Parquet and CSV files, a manifest to read them as one table, and a change feed.'),
    link('DCAT catalogue', `${base}${PATHS.catalogueJsonLd}`, 'every dataset with its distributions, as JSON-LD.'),
    link('Documentation', `${base}${PATHS.docs}`, 'for people, with copy-paste examples.'),
    '',
  ];
}

function examples(base: string, facts: LlmsFacts): string[] {
  const f = encodeValue(EXAMPLE);
  const key = facts.keysRequired ? ' (with your key)' : '';
  return [
    `## Worked examples: ${QUESTION}`,
    '',
    `The filter, in OData: \`${EXAMPLE}\`.`,
    '',
    link('Count', `${base}${PATHS.odata}/Observations?$filter=${f}&$count=true`, 'the exact number, as `{"value": N}`. MCP: `count`.'),
    link('Count as text', `${base}${PATHS.odata}/Observations/$count?$filter=${f}`, 'the same number alone, `text/plain` (OData\'s `/$count`, as Excel, Power BI and other OData clients ask); only `$filter` applies there.'),
    link('Page', `${base}${PATHS.odata}/Records?$filter=${f}&$top=100`, `the first 100 rows (default ${DEFAULT_TOP}, at most ${TOP_RANGE.max}); follow \`@odata.nextLink\` (it carries the publication) to the end. MCP: \`query\` returns at most ${MAX_QUERY_ROWS} rows with the total.`),
    link('Export', `${base}${PATHS.export}/Records?$filter=${f}&$format=csv`, `every row in one file${key}: \`$format=csv\` or \`parquet\` (GeoParquet); \`X-Total-Count\` says how many. Offered on ${EXPORT_RESOURCES.join(' and ')}.`),
    link('Cite', `${base}${PATHS.citation}/Records?$filter=${f}&format=text`, 'every dataset the rows come from, with its DOI, licence and rows; `format=csl` for CSL-JSON, `bibtex`, `ris`. MCP: `cite`.'),
    link('GIS', `${base}${PATHS.features}/collections/observations/items?filter=${encodeValue(CQL2_EXAMPLE)}&limit=100`, 'the same observations as GeoJSON points (OGC API – Features, a CQL2 `filter`; `bbox=west,south,east,north` narrows by place), for QGIS, GDAL, R sf or geopandas.'),
    link('Group', `${base}${PATHS.odata}/Observations?$apply=${encodeValue(`filter(${EXAMPLE})/groupby((LocationId),aggregate($count as Count))`)}`, `where: the count per location (\`$apply\`, on ${APPLY_RESOURCES.join(', ')}; \`/orderby(Count desc)/top(10)\` after the groupby keeps the ten largest). MCP: \`aggregate\`, \`list_values\`.`),
    link(
      'Site statistics',
      `${base}${PATHS.odata}/LocationSummaries?$filter=${encodeValue("CharacteristicName eq 'Lead'")}`,
      "per location and unit, with non-detects counted (Kaplan–Meier where results are censored): read each statistic with its qualifier, `MedianQualifier` `<` and `Median` 0.5 is \"below 0.5\"; `Method` says how it was computed. In `$apply`: `ResultValue with Tributary.km_median as Median` beside `Tributary.km_median_qualifier` (`Tributary.median` and `average` leave non-detects out).",
    ),
    link('Exceedances', `${base}${PATHS.odata}/GuidelineComparisons?$apply=${encodeValue(`filter(${GOVERNING_FILTER} and Verdict eq 'exceeds')/groupby((LocationId,CharacteristicName),aggregate($count as Count))`)}`, `results exceeding a guideline, per location and characteristic: \`${GOVERNING_FILTER}\` counts each result once per publisher and term (its governing comparison), where every comparison would count it once per guideline that applies. The MCP tools read the governing comparisons unless the filter names \`Governing\`.`),
    link(
      'Trends',
      `${base}${PATHS.odata}/Trends?$apply=${encodeValue("filter(Period eq 10 and CharacteristicName eq 'Escherichia coli')/groupby((Category),aggregate($count as Sites))")}`,
      "is it getting better or worse: one row per site, series and period (5, 10 and 15 years to the end year) with LWP-Trends' Mann–Kendall test with censored values, the Sen slope (`SenSlope`, `PercentAnnualChange`) and LAWA's `Category` (`Very likely improving` … `Very likely degrading`, `Not Analysed` with its `Reason`); grouped by `Category`, a region's picture. On the map: the OGC collection `trends`.",
    ),
    '',
  ];
}

function limits(facts: LlmsFacts): string[] {
  const { rateLimit, discoveryRateLimit, fileBytes } = facts;
  const floor = rateLimit?.minRows && rateLimit.minRows > 1 ? `; a request costs the rows it returns, at least ${amount(rateLimit.minRows, BUDGET_UNITS.rows)}` : '';
  return [
    '## Limits',
    '',
    `- Rate: everything that runs a query (pages, counts, \`$apply\`, exports, citations, OGC items, each read an MCP tool makes) draws from one budget per key (per address without keys), counted in ${BUDGET_UNITS.rows}: ${rateLimit ? `${budgetRate('rows', rateLimit)}${floor}` : 'not limited on this instance'}. Over it: 429 with \`Retry-After\`.`,
    `- Discovery documents (this page, OpenAPI, \`$metadata\`, OGC API – Features' documents, an MCP message) have a budget of their own, counted in ${BUDGET_UNITS.discovery}: ${discoveryRateLimit ? budgetRate('discovery', discoveryRateLimit) : 'not limited on this instance'}.`,
    `- Dataset files draw from a budget counted in ${BUDGET_UNITS['file-bytes']}: ${fileBytes ? budgetRate('file-bytes', { rps: fileBytes.bytesPerSecond, burst: fileBytes.burst }) : 'not limited on this instance'}.`,
    `- Page size: \`$top\` ${TOP_RANGE.min}–${TOP_RANGE.max} (default ${DEFAULT_TOP})${facts.maxPageBytes ? `; a page estimated over ${mib(facts.maxPageBytes)} is 413: lower \`$top\` or \`$select\` fewer fields` : ''}. For more rows, follow next links or export.`,
    `- Time: ${facts.queryTimeoutMs ? `a query with no first row after ${Math.round(facts.queryTimeoutMs / 1000)} s is 504` : 'no query deadline on this instance'}.`,
    `- Retention: a pinned URL (\`${PIN_PARAM}=<id>\`, next links) answers from its publication ${facts.retentionMs !== undefined ? `for ${hours(facts.retentionMs)} after a newer one replaces it` : 'while this server keeps it'} (the three newest always); after that, 410 \`publication_gone\` names the current one: start again from the first page.`,
    "- Results are in Id order; `$orderby` and `$skip` are not offered (`$apply`'s `orderby` and `top` sort and cut groups).",
    `- \`$apply\`: \`groupby\` takes a resource's dimensions (\`describe\` lists them), at most ${APPLY_LIMITS.maxGroupingFields} per request, and at most ${APPLY_LIMITS.maxHolisticAggregates} holistic aggregates (medians, percentiles, \`countdistinct\`); past either, 400 \`apply_too_large\`${facts.maxApplyGroups ? `, as is one estimated to make more than ${facts.maxApplyGroups} groups (each grouped field's values multiplied, capped by the rows it reads): filter, or group by fewer fields` : ''}. An \`$apply\` costs the rate limit the rows it reads (÷ APPLY_ROWS_READ_PER_ROW), not the groups it returns.`,
    '',
  ];
}

function citing(): string[] {
  return [
    '## How to cite',
    '',
    `Cite the datasets a result comes from, each by its DOI (\`https://doi.org/<DOI>\`), and keep the pinned URL of the query. \`${PATHS.citation}/<resource>?$filter=…\` (the same filter as the query) lists them with their citation text, licence and rows, as JSON, CSL-JSON, BibTeX, RIS or text; each dataset's page is \`${PATHS.datasetPages}/<DOI>\` (HTML with schema.org JSON-LD).`,
    '',
  ];
}

function fields(): string[] {
  return resources.flatMap((r) => {
    const d = describeResource(r);
    return [
      `## ${r.name} fields`,
      '',
      ...d.fields.map((f) => `- \`${f.name}\` (${f.type}${f.nullable ? ', may be null' : ''}${f.filterable ? ', filterable' : ''}${f.onRequest ? ', only when $select names it' : ''}): ${f.description}`),
      ...(d.filterOnly.length ? ['', `Also filterable (rows with such an observation): ${d.filterOnly.map((f) => `\`${f.name}\``).join(', ')}.`] : []),
      '',
    ];
  });
}

interface Operation {
  readonly summary?: string;
  readonly description?: string;
}

function operations(base: string): string[] {
  const paths = (buildOpenApi(base) as { paths: Record<string, Record<string, Operation>> }).paths;
  return [
    '## Operations (from the OpenAPI document)',
    '',
    ...Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => typeof op === 'object' && op.summary)
        .flatMap(([method, op]) => [`### ${method.toUpperCase()} \`${path}\``, '', op.summary!, ...(op.description ? ['', op.description] : []), '']),
    ),
  ];
}

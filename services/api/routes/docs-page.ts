/**
 * The human docs page at `/` of the data API: a static page built from the catalogue, with copy-paste
 * examples against the base URL the reader used. No scripts; every interpolated value is HTML-escaped.
 */
import { filterNames, nullOnWire, resources, type ResourceDef } from '../../../schemas/index.js';
import { API_ERROR_CODES } from '../errors.js';
import { FORMAT_NAMES, FORMATS } from '../formats.js';
import { filterOnlyNames } from '../metadata/csdl.js';
import { AGGREGATE_METHODS, FILTER_LIMITS, TOP_RANGE } from '../odata/index.js';
import { DEFAULT_TOP } from '../query/plan.js';
import { measuresOf } from '../query/measures.js';
import { APPLY_LIMITS } from '../query/apply-limits.js';
import { APPLY_RESOURCES } from '../query/plan-apply.js';
import { PATHS } from '../http/paths.js';
import { TOOLS } from '../mcp/tool-descriptions.js';
import { html, raw, type Raw } from '../http/html-template.js';
import { pageShell } from '../http/page-shell.js';


function resourceSection(r: ResourceDef): Raw {
  const filterOnly = filterOnlyNames(r);
  return html`<details><summary>${r.name} (${r.fields.length} fields)</summary>
<p>${r.description} <code>GET ${PATHS.odata}/${r.name}</code></p>
<p>Filterable: ${filterNames(r).map((n, i) => html`${i ? ', ' : ''}<code>${n}</code>`)}.${filterOnly.length ? html` Not fields of ${r.name}, filter only: ${filterOnly.join(', ')}.` : ''}</p>
${applySection(r)}
<table><thead><tr><th>field</th><th>type</th><th>null?</th><th>description</th></tr></thead><tbody>
${r.fields.map((f) => html`<tr><td><code>${f.name}</code></td><td>${f.type}</td><td>${nullOnWire(f) ? 'yes' : ''}</td><td>${f.description}</td></tr>\n`)}</tbody></table></details>
`;
}

/** What `$apply` groups and aggregates on the resource (its `apply` door), or that it offers none. */
function applySection(r: ResourceDef): Raw {
  if (r.apply === 'none') return html`<p>No <code>$apply</code>: count it with <code>$count=true</code>.</p>`;
  const codes = (names: readonly string[]) => names.map((n, i) => html`${i ? ', ' : ''}<code>${n}</code>`);
  const measures = measuresOf(r).map((m) => m.name);
  return html`<p><code>$apply</code> groups by ${codes(r.apply.groupBy)}; aggregates ${measures.length ? codes(measures) : 'only $count'}${r.apply.distinct.length ? html`; <code>countdistinct</code> also counts ${codes(r.apply.distinct)}` : ''}.</p>`;
}

/** The page for a server reachable at `base` (scheme and host). */
export function docsPage(base: string): string {
  const root = `${base}${PATHS.odata}`;
  const codes = Object.entries(API_ERROR_CODES);
  return pageShell({ title: 'Tributary data API', main: html`<h1>Tributary data API</h1>
<p>Open water-quality monitoring data in the <a href="https://datastream.org">DataStream</a> schema, served read-only as
OData v4 JSON, compatible with the DataStream public API and its clients. Send your API key in the <code>x-api-key</code> header.</p>
<ul>
<li>OpenAPI 3.1: <a href="${PATHS.openapi}"><code>${base}${PATHS.openapi}</code></a></li>
<li>OData service document: <a href="${PATHS.odata}/"><code>${root}/</code></a> and metadata (CSDL XML): <a href="${PATHS.odata}/$metadata"><code>${root}/$metadata</code></a></li>
<li>Recipes for curl, Python, R, JavaScript (datastreamjs), Excel and Power BI: <code>docs/recipes/</code> in the repository.</li>
<li>Bulk downloads, every dataset as Parquet and CSV with sizes and SHA-256: <a href="${PATHS.downloads}"><code>${base}${PATHS.downloads}</code></a> (<a href="#downloads">below</a>)</li>
<li>Explore the data without writing a query: facets, a map, a chart, a preview, CSV and "copy as": <a href="${PATHS.explore}">${PATHS.explore}</a></li>
<li>Search engines and harvesters (no key): a page per dataset at <code>/datasets/&lt;DOI&gt;</code> and per location with schema.org JSON-LD, the DCAT catalogue at <a href="${PATHS.catalogue}"><code>${base}${PATHS.catalogue}</code></a> (JSON-LD or Turtle), <a href="${PATHS.sitemap}"><code>${PATHS.sitemap}</code></a> and every location as NDJSON-LD at <code>${PATHS.locationsDump}</code></li>
<li>GIS clients (QGIS, GDAL/OGR, ArcGIS Pro, R sf, geopandas, OWSLib): the same data as OGC API – Features (GeoJSON) at <a href="${PATHS.features}"><code>${base}${PATHS.features}</code></a>; GDAL and QGIS send the key with <code>GDAL_HTTP_HEADERS="x-api-key: YOUR_KEY"</code></li>
<li>Assistants: the Model Context Protocol server at <code>${base}${PATHS.mcp}</code> (Streamable HTTP, the same key; tools ${Object.keys(TOOLS).join(', ')}) and <a href="${PATHS.llmsTxt}"><code>${base}${PATHS.llmsTxt}</code></a></li>
</ul>

<h2 id="cite">Citation and licence</h2>
<p>Every dataset has its own <strong>DOI</strong>, <strong>citation</strong> and <strong>licence</strong>. Find them in
<code>/Metadata</code>, and cite each dataset you use as <code>https://doi.org/&lt;DOI&gt;</code> together with its
<code>Citation</code> text; respect its <code>Licence</code>.</p>
<pre>curl -G ${root}/Metadata -H 'x-api-key: YOUR_KEY' \\
  --data-urlencode '$select=DOI,DatasetName,Citation,Licence'</pre>
<p>A response whose <code>$filter</code> pins one dataset (<code>DOI eq '…'</code>, alone or joined by <code>and</code>)
carries <code>Link: &lt;https://doi.org/…&gt;; rel="cite-as"</code>, after the <code>rel="next"</code> link when there is one.</p>
<p>To cite a whole result, ask <code>${PATHS.citation}/&lt;resource&gt;</code> with the same <code>$filter</code>: every dataset
the rows come from, with its citation, licence and rows, and the query pinned to its publication, as JSON, or by
<code>Accept</code> (or <code>format=</code>) as BibTeX, RIS, CSL-JSON or text. Every page links it as
<code>rel="describedby"</code>.</p>
<pre>curl -G ${base}${PATHS.citation}/Records -H 'x-api-key: YOUR_KEY' -H 'Accept: application/x-bibtex' \\
  --data-urlencode "\\$filter=CharacteristicName eq 'pH'"</pre>

<h2 id="downloads">Bulk downloads</h2>
<p><a href="${PATHS.downloads}"><code>${PATHS.downloads}</code></a> lists every dataset of the current publication with its
DOI, licence, citation, rows and one file per format (Parquet, CSV): its URL, size and SHA-256. File URLs name their
content's hash, never change content, are cached for a year and resume where a cut download stopped (HTTP ranges).</p>
<pre>curl -O -C - -H 'x-api-key: YOUR_KEY' '${base}${PATHS.downloads}/files/sha256-…/….parquet'</pre>
<p>The whole hub as one table: <a href="${PATHS.manifest}"><code>${PATHS.manifest}</code></a> lists every Parquet file, with a ready
<code>read_parquet([…])</code> for DuckDB (polars, pandas, Spark and Trino read the same list). What changed since a
publication you have: <a href="${PATHS.publications}"><code>${PATHS.publications}?since=&lt;id&gt;</code></a>.</p>

<h2 id="examples">Examples</h2>
<p>curl (let <code>--data-urlencode</code> do the encoding):</p>
<pre>curl -G ${root}/Observations -H 'x-api-key: YOUR_KEY' \\
  --data-urlencode "\\$filter=CharacteristicName eq 'pH' and ActivityStartYear ge 2020" \\
  --data-urlencode '$select=Id,DOI,LocationId,ActivityStartDate,ResultValue,ResultUnit' \\
  --data-urlencode '$top=100'
curl -G ${root}/Observations -H 'x-api-key: YOUR_KEY' \\
  --data-urlencode "\\$filter=CharacteristicName eq 'pH'" --data-urlencode '$count=true'
curl -G ${root}/Observations -H 'x-api-key: YOUR_KEY' \\
  --data-urlencode "\\$filter=CharacteristicName eq 'pH' and ResultValue gt 9 and ActivityStartDate ge 2020-06-01" \\
  --data-urlencode '$select=Id,LocationId,ActivityStartDate,ResultValue,ResultUnit'
curl -G ${root}/Observations -H 'x-api-key: YOUR_KEY' \\
  --data-urlencode '$apply=groupby((CharacteristicName),aggregate($count as Count))'</pre>
<p>Python (standard library only), following every page:</p>
<pre>import json, urllib.parse, urllib.request
url = "${root}/Observations?" + urllib.parse.urlencode(
    {"$filter": "CharacteristicName eq 'pH'", "$top": "1000"}, quote_via=urllib.parse.quote)
while url:
    req = urllib.request.Request(url, headers={"x-api-key": "YOUR_KEY"})
    with urllib.request.urlopen(req) as res:
        page = json.load(res)
    for row in page["value"]:
        print(row["Id"], row["ResultValue"])
    url = page.get("@odata.nextLink")</pre>
<p>Excel and Power BI: <em>Get Data → OData feed</em>, URL <code>${root}/</code>; pick the tables in the navigator.
Generic OData clients read <code>$metadata</code> for types and for what the service supports.</p>

<h2 id="options">Query options</h2>
<table><tbody>
<tr><td><code>$select</code></td><td>comma-separated fields; default all</td></tr>
<tr><td><code>$filter</code></td><td><code>eq ne lt gt le ge lte gte</code>, <code>in (…)</code>, <code>and or not</code>, parentheses, <code>startswith endswith contains</code>, <code>null</code>; at most ${FILTER_LIMITS.maxTerms} conditions, ${FILTER_LIMITS.maxInValues} values per list, nesting ${FILTER_LIMITS.maxDepth}</td></tr>
<tr><td><code>$top</code></td><td>${TOP_RANGE.min}–${TOP_RANGE.max} rows per page, default ${DEFAULT_TOP}</td></tr>
<tr><td><code>$skiptoken</code></td><td>page cursor: follow <code>@odata.nextLink</code> or <code>Link: &lt;…&gt;; rel="next"</code></td></tr>
<tr><td><code>$count=true</code></td><td><code>{"value": n}</code>, exact</td></tr>
<tr><td><code>$apply</code></td><td><code>[filter(…)/]groupby((F1,…)[,aggregate(…)])[/orderby(Column [desc],…)][/top(n)]</code> or <code>[filter(…)/]aggregate(…)</code> on ${APPLY_RESOURCES.join(', ')}; group by a resource's dimensions (each resource below lists them), at most ${APPLY_LIMITS.maxGroupingFields} at once; aggregate <code>$count as Count</code> or <code>Field with method as Alias</code>, the methods ${AGGREGATE_METHODS.map((m, i) => html`${i ? ', ' : ''}<code>${m}</code>`)}, at most ${APPLY_LIMITS.maxHolisticAggregates} medians, percentiles or <code>countdistinct</code>s a request; <code>orderby</code> and <code>top</code> sort the groups and keep the first n; values in more than one unit are refused unless the unit is grouped</td></tr>
<tr><td><code>$format</code></td><td>${FORMAT_NAMES.map((f, i) => html`${i ? ', ' : ''}<code>${f}</code>`)}; default json (or <code>Accept:</code> ${FORMAT_NAMES.filter((f) => FORMATS[f].byAccept).map((f, i) => html`${i ? ', ' : ''}<code>${FORMATS[f].mediaType}</code>`)})</td></tr>
</tbody></table>
<p>Results are always in Id order. <code>$orderby</code>, <code>$skip</code>, <code>$expand</code> and unknown <code>$</code> options answer 400.</p>

<h2 id="resources">Resources</h2>
${resources.map(resourceSection)}
<h2 id="errors">Errors</h2>
<p>Every error is <code>{"message": "…", "errors": [{"status", "code", "detail", "source": {"parameter", "offset"}}]}</code>.</p>
<table><thead><tr><th>status</th><th>codes</th></tr></thead><tbody>
${[...new Set(codes.map(([, s]) => s))].sort((a, b) => a - b).map((s) => html`<tr><td>${s}</td><td>${codes.filter(([, st]) => st === s).map(([c], i) => html`${i ? ', ' : ''}<code>${c}</code>`)}</td></tr>\n`)}</tbody></table>` });
}

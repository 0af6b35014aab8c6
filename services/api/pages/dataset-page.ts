/**
 * A dataset's landing page (`/datasets/<DOI>`): who made it, its licence and citation, where and when it was
 * measured (a map of its locations), what was measured with exact counts, its files with sizes and hashes, and
 * where its data is in the API, the export, OGC API – Features and the explorer. Everything comes from the
 * publication's catalogue (exec/landing.ts) and one query for the locations listed; every value is escaped.
 */
import { DOWNLOAD_FILE_TYPE } from '../../../schemas/publication-files.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import type { DatasetSummary, LocationRow } from '../exec/landing.js';
import { html, type Raw } from '../http/html-template.js';
import { doiUrl } from '../http/links.js';
import { licenceUrl } from '../citation/licence-url.js';
import { count, landingPage, size, wideTable } from './page-layout.js';
import { datasetFiles, datasetLinks, datasetPagePath, locationPagePath } from './page-links.js';
import { svgMap } from '../http/svg-map.js';
import { datasetJsonLd } from './schema-org.js';

/** Locations a page lists and maps; the rest are one link away (the API, the OGC collection). */
export const PAGE_LOCATIONS = 500;

/** A link only to a web URL: a `javascript:` or `data:` URL from the data is shown as text. */
const webLink = (url: string | null, label?: string): Raw | string =>
  url && /^https?:\/\/[^\s]+$/i.test(url) ? html`<a href="${url}">${label ?? url}</a>` : (label ?? url ?? '');

const row = (term: string, value: unknown) => (value === null || value === undefined || value === '' ? '' : html`<dt>${term}</dt><dd>${value}</dd>\n`);

export function datasetPage(base: string, d: DatasetSummary, locations: readonly LocationRow[]): string {
  const links = datasetLinks(base, d.doi);
  const licence = licenceUrl(d.licence);
  const files = datasetFiles(base, d.doi, d.files);
  const shown = locations.slice(0, PAGE_LOCATIONS);
  const main = html`<h1>${d.name}</h1>
<p>DOI <a href="${doiUrl(d.doi)}">${doiUrl(d.doi)}</a>${d.version ? html` · version ${d.version}` : ''}</p>
<section aria-labelledby="cite"><h2 id="cite">Cite and licence</h2>
${d.citation ? html`<blockquote>${d.citation}</blockquote>` : html`<p>Cite it as <a href="${doiUrl(d.doi)}">${doiUrl(d.doi)}</a>.</p>`}
<p>Licence: ${licence ? html`<a href="${licence}" rel="license">${d.licence}</a>` : (d.licence ?? 'not stated')}</p></section>
<section aria-labelledby="about"><h2 id="about">About the data</h2>
${d.abstract ? html`<p>${d.abstract}</p>` : ''}
<dl>
${row('Collected by', d.collectedBy)}${row('Uploaded by', d.uploadedBy)}${row('Data steward', d.stewardEmail ? html`<a href="mailto:${d.stewardEmail}">${d.stewardEmail}</a>` : null)}
${row('Funding', d.funding)}${row('Source', d.sourceUrl ? webLink(d.sourceUrl) : null)}${row('Keywords', d.keywords.join(', '))}
${row('Progress', d.progress)}${row('Updated', d.maintenance)}${row('Published', d.published)}${row('Changed in this hub', d.modified)}
</dl></section>
<section aria-labelledby="coverage"><h2 id="coverage">Coverage</h2>
<dl>${row('Time', d.temporal ? `${d.temporal[0]} to ${d.temporal[1]}` : null)}${row('Area (west, south, east, north)', d.bbox ? d.bbox.join(', ') : null)}${row('Monitoring locations', count(d.locations))}${row('Observations', count(d.observations))}</dl>
${d.bbox && shown.length ? svgMap(shown.map((l) => ({ lon: l.longitude, lat: l.latitude })), `Map of ${shown.length === d.locations ? 'the' : `${shown.length} of the`} ${count(d.locations)} monitoring locations of ${d.name}`, d.bbox) : ''}
</section>
<section aria-labelledby="measured"><h2 id="measured">What was measured</h2>
<table><caption>Characteristics and their observations (exact counts)</caption><thead><tr><th scope="col">Characteristic</th><th scope="col" class="n">Observations</th></tr></thead><tbody>
${d.characteristics.map((c) => html`<tr><td>${c.name}</td><td class="n">${count(c.count)}</td></tr>\n`)}</tbody>
<tfoot><tr><th scope="row">All</th><td class="n">${count(d.observations)}</td></tr></tfoot></table></section>
<section aria-labelledby="locations"><h2 id="locations">Monitoring locations</h2>
${shown.length < d.locations ? html`<p>The first ${count(shown.length)} of ${count(d.locations)}; all of them: <a href="${links.locations}">the API</a> or <a href="${links.featuresLocations}">OGC API – Features</a>.</p>` : ''}
${wideTable('Monitoring locations (scrolls sideways)', html`<table><caption>Monitoring locations of ${d.name}</caption><thead><tr><th scope="col">Location</th><th scope="col">ID</th><th scope="col">Type</th><th scope="col" class="n">Latitude</th><th scope="col" class="n">Longitude</th></tr></thead><tbody>
${shown.map((l) => html`<tr><td><a href="${locationPagePath(l.id)}">${l.name}</a></td><td>${l.monitoringLocationId}</td><td>${l.type}</td><td class="n">${l.latitude}</td><td class="n">${l.longitude}</td></tr>\n`)}</tbody></table>`)}</section>
<section aria-labelledby="files"><h2 id="files">Files</h2>
<p>The whole dataset, one file per format. A file's URL names its content: it never changes, and a cut download resumes where it stopped.</p>
${wideTable('Files (scrolls sideways)', html`<table><caption>Files of ${d.name}</caption><thead><tr><th scope="col">Format</th><th scope="col" class="n">Rows</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead><tbody>
${files.map((f) => html`<tr><td><a href="${f.url}" type="${EXPORT_FORMATS[DOWNLOAD_FILE_TYPE[f.format]].mediaType}">${f.format}</a></td><td class="n">${count(f.rows)}</td><td>${size(f.bytes)}</td><td><code class="hash">${f.sha256}</code></td></tr>\n`)}</tbody></table>`)}</section>
<section aria-labelledby="access"><h2 id="access">Use the data</h2><ul>
<li>OData API: <a href="${links.observations}">observations</a>, <a href="${links.locations}">locations</a>, <a href="${links.metadata}">metadata</a> (send your API key in <code>x-api-key</code>)</li>
<li>Export every record in one file: <a href="${links.exportCsv}">CSV</a>, <a href="${links.exportParquet}">Parquet</a> (needs a key)</li>
<li>OGC API – Features (QGIS, GDAL, ArcGIS): <a href="${links.featuresLocations}">locations</a>, <a href="${links.featuresObservations}">observations</a></li>
<li><a href="${links.explore}">Explore it</a>: facets, a map and a chart</li>
</ul></section>`;
  return landingPage(base, {
    title: d.name,
    description: d.abstract ?? d.name,
    canonical: `${base}${datasetPagePath(d.doi)}`,
    jsonLd: datasetJsonLd(base, d),
    main,
  });
}

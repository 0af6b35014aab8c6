/**
 * A monitoring location's landing page (`/locations/<Id>`): where it is (a map), what was measured there with exact
 * counts and when, the dataset it belongs to, and where its data is. Its JSON-LD is Geoconnex's location-oriented
 * shape (pages/schema-org.ts); every value is escaped.
 */
import type { DatasetSummary, LocationDetail } from '../exec/landing.js';
import { html } from '../http/html-template.js';
import { doiUrl } from '../http/links.js';
import { count, landingPage, wideTable } from './page-layout.js';
import { datasetPagePath, locationLinks, locationPagePath } from './page-links.js';
import { svgMap } from '../http/svg-map.js';
import { locationJsonLd } from './schema-org.js';

export function locationPage(base: string, loc: LocationDetail, dataset: DatasetSummary | undefined): string {
  const links = locationLinks(base, loc.id);
  const observations = loc.characteristics.reduce((n, c) => n + c.count, 0);
  const main = html`<h1>${loc.name}</h1>
<p>Monitoring location <code>${loc.monitoringLocationId}</code> · ${loc.type}${dataset ? html` · in <a href="${datasetPagePath(dataset.doi)}">${dataset.name}</a>` : ''}</p>
<section aria-labelledby="where"><h2 id="where">Where and when</h2>
<dl><dt>Latitude, longitude</dt><dd>${loc.latitude}, ${loc.longitude} (${loc.crs})</dd>
${loc.temporal ? html`<dt>Measured</dt><dd>${loc.temporal[0]} to ${loc.temporal[1]}</dd>` : ''}
<dt>Observations</dt><dd>${count(observations)}</dd></dl>
${svgMap([{ lon: loc.longitude, lat: loc.latitude }], `Map of ${loc.name} at latitude ${loc.latitude}, longitude ${loc.longitude}`)}
</section>
<section aria-labelledby="measured"><h2 id="measured">What was measured</h2>
<table><caption>Characteristics measured at ${loc.name} (exact counts)</caption><thead><tr><th scope="col">Characteristic</th><th scope="col" class="n">Observations</th></tr></thead><tbody>
${loc.characteristics.map((c) => html`<tr><td>${c.name}</td><td class="n">${count(c.count)}</td></tr>\n`)}</tbody></table></section>
${dataset
    ? html`<section aria-labelledby="dataset"><h2 id="dataset">Dataset</h2>
<p><a href="${datasetPagePath(dataset.doi)}">${dataset.name}</a>, DOI <a href="${doiUrl(dataset.doi)}">${doiUrl(dataset.doi)}</a>${dataset.collectedBy ? html`, collected by ${dataset.collectedBy}` : ''}.</p>
${dataset.citation ? html`<blockquote>${dataset.citation}</blockquote>` : ''}</section>`
    : ''}
<section aria-labelledby="access"><h2 id="access">Use the data</h2><ul>
<li>OData API: <a href="${links.observations}">its observations</a> (send your API key in <code>x-api-key</code>)</li>
<li>Export its records in one file: <a href="${links.exportCsv}">CSV</a> (needs a key)</li>
<li>OGC API – Features: <a href="${links.feature}">this location as GeoJSON</a></li>
<li><a href="${links.explore}">Chart it in the explorer</a></li>
</ul></section>`;
  return landingPage(base, {
    title: loc.name,
    description: `${loc.type} monitoring location ${loc.monitoringLocationId}${dataset ? ` of ${dataset.name}` : ''}: ${loc.characteristics.map((c) => c.name).join(', ')}.`,
    canonical: `${base}${locationPagePath(loc.id)}`,
    jsonLd: locationJsonLd(base, loc, dataset),
    main,
  });
}

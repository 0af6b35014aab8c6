/**
 * A monitoring location's landing page (`/locations/<Id>`): where it is (a map), what was measured there with exact
 * counts and when, the dataset it belongs to, and where its data is. Its JSON-LD is Geoconnex's location-oriented
 * shape (pages/schema-org.ts); every value is escaped.
 */
import type { DatasetSummary, LocationDetail, LocationSummary } from '../exec/landing.js';
import { html } from '../http/html-template.js';
import { doiUrl } from '../http/links.js';
import { count, landingPage, wideTable } from './page-layout.js';
import { datasetPagePath, locationLinks, locationPagePath } from './page-links.js';
import { svgMap } from '../http/svg-map.js';
import { locationJsonLd } from './schema-org.js';

/** A summary value as the page shows it: up to 4 significant digits, the full value in the API. */
const value = (v: string | number | null): string => (v === null ? '' : typeof v === 'number' ? String(Number(v.toPrecision(4))) : v);

/** The characteristic with its fraction and speciation when given: "Copper (Dissolved)", "Nitrogen (as N)". */
const measured = (s: LocationSummary): string => [s.CharacteristicName, s.ResultSampleFraction, s.MethodSpeciation].filter((x) => x !== null).map(String).join(', ');

/** A statistic with its qualifier, as a laboratory writes a result below its limit: `<0.5`. */
const qualified = (s: LocationSummary, name: 'Min' | 'P10' | 'Median' | 'P90' | 'Max'): string => (s[name] === null ? '' : `${s[`${name}Qualifier`] ?? ''}${value(s[name])}`);

/** The latest result: its value (or detection condition) and date. */
const latest = (s: LocationSummary): string => `${s.LatestValue === null ? (s.LatestDetectionCondition ?? '') : value(s.LatestValue)} on ${s.LatestDate}`;

/** Issue 48: what a scientist asks of a site first, per characteristic and unit — typical value, range, latest. */
function summaryTable(name: string, summaries: readonly LocationSummary[], link: string) {
  if (summaries.length === 0) return '';
  return html`<section aria-labelledby="summary"><h2 id="summary">Summary</h2>
${wideTable(`Summary of ${name}`, html`<table><caption>Values at ${name} per characteristic and unit, quality-control samples left out: non-detects enter the statistics as values below their limit (Kaplan–Meier), so &lt;0.5 reads "below 0.5"; P10 and P90 are the 10th and 90th percentiles; Statistics says how they were computed</caption>
<thead><tr><th scope="col">Characteristic</th><th scope="col">Unit</th><th scope="col" class="n">Observations</th><th scope="col" class="n">Non-detects</th><th scope="col">From</th><th scope="col">To</th><th scope="col" class="n">Min</th><th scope="col" class="n">P10</th><th scope="col" class="n">Median</th><th scope="col" class="n">P90</th><th scope="col" class="n">Max</th><th scope="col">Statistics</th><th scope="col">Latest</th></tr></thead><tbody>
${summaries.map((s) => html`<tr><td>${measured(s)}</td><td>${value(s.ResultUnit)}</td><td class="n">${count(Number(s.Count))}</td><td class="n">${count(Number(s.NonDetects))}</td><td>${value(s.FirstDate)}</td><td>${value(s.LastDate)}</td><td class="n">${qualified(s, 'Min')}</td><td class="n">${qualified(s, 'P10')}</td><td class="n">${qualified(s, 'Median')}</td><td class="n">${qualified(s, 'P90')}</td><td class="n">${qualified(s, 'Max')}</td><td>${value(s.MethodReason)}</td><td>${latest(s)}</td></tr>\n`)}</tbody></table>`)}
<p>The same with every digit: <a href="${link}">LocationSummaries of this location</a>.</p></section>`;
}

export function locationPage(base: string, loc: LocationDetail, dataset: DatasetSummary | undefined, summaries: readonly LocationSummary[] = []): string {
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
${summaryTable(loc.name, summaries, links.summaries)}
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

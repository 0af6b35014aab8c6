/**
 * `/explore`: the explorer page. The HTML is this file's; its script, styles and province boundaries are the
 * assets `npm run build` writes (scripts/build/build-explore.ts) and this route serves from that folder; the
 * regions it draws and offers are the API's `regions` collection (ogc/regions-collection.ts). Nothing here needs a
 * key: the page calls the public API like any browser client (the API's own origin listed in CORS_ORIGINS).
 * While keys are required, such a call may not export nor fetch a dataset file (middleware/access.ts): the page
 * then offers neither as a link and says what a key is for, so no click downloads a 401 body as a file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../errors.js';
import type { Mount } from '../http/mount.js';
import { PATHS } from '../http/paths.js';

export interface ExploreOptions {
  /** The folder scripts/build/build-explore.ts wrote. */
  readonly assetsDir: string;
  /** A raster tile URL template (`https://tiles.example.org/{z}/{x}/{y}.png`) drawn below the boundaries. */
  readonly tileUrl?: string;
  readonly tileAttribution?: string;
  /** Whether keys are required now (they turn on without a restart); left out, never. */
  readonly keysRequired?: () => boolean;
}

/** A Map: the file name is the request's, and an object would list `constructor` as an asset. */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ['explore.js', 'text/javascript; charset=utf-8'],
  ['explore.js.map', 'application/json'],
  ['explore.css', 'text/css; charset=utf-8'],
  ['explore.css.map', 'application/json'],
  ['provinces.json', 'application/geo+json'],
]);

/** JSON inside <script>: `<` escaped so no value can close the element. */
const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c');

export function registerExplore(mount: Mount, opts: ExploreOptions): void {
  const tileOrigin = opts.tileUrl ? new URL(opts.tileUrl.replace(/\{[a-z]\}/g, '0')).origin : '';
  const csp = [
    "default-src 'self'",
    `img-src 'self' data: blob:${tileOrigin ? ` ${tileOrigin}` : ''}`,
    // Leaflet and uPlot position elements with style attributes.
    "style-src 'self' 'unsafe-inline'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html = { open: page({ tileUrl: opts.tileUrl, tileAttribution: opts.tileAttribution }), keyed: page({ tileUrl: opts.tileUrl, tileAttribution: opts.tileAttribution, bulkNeedsKey: true }) };

  mount('explore', (c) => c.html(opts.keysRequired?.() ? html.keyed : html.open, 200, { 'Content-Security-Policy': csp }));

  mount('exploreAsset', async (c) => {
    const file = c.req.param('file') ?? '';
    const type = ASSETS.get(file);
    if (!type) throw new ApiError('not_found', `No explorer asset '${file}'. The page loads explore.js, explore.css and provinces.json.`);
    try {
      return c.body(await readFile(join(opts.assetsDir, file)), 200, { 'Content-Type': type });
    } catch {
      throw new ApiError('unavailable', `The explorer's assets are not built (no ${file} in ${opts.assetsDir}): run 'make build' (or 'npm run build'), then reload.`);
    }
  });
}

/** What the page says instead of the export links and the files' links while they need a key. */
const KEY_NEEDED = `need an API key, which this page does not hold: get one from the operators of this API (see <a href="/">the documentation</a>) and send it as "Copy the request as" below does, from <code>TRIBUTARY_API_KEY</code>.`;

function page(config: { tileUrl?: string; tileAttribution?: string; bulkNeedsKey?: true }): string {
  const exportsLine = config.bulkNeedsKey
    ? `<p class="exports" data-needs-key>The whole result in one file, and the dataset files below, ${KEY_NEEDED} Without one, "Download CSV" fetches the selection page by page.</p>`
    : `<p class="exports">The whole result in one file, one request:
        <a class="export" data-format="parquet" download>Parquet</a>
        <a class="export" data-format="csv" download>CSV</a>
      </p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Explore · Tributary</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${PATHS.explore}/assets/explore.css">
<script type="application/json" id="explore-config">${scriptJson(config)}</script>
<script type="module" src="${PATHS.explore}/assets/explore.js"></script>
</head>
<body>
<a class="skip" href="#results">Skip to the results</a>
<header>
  <h1>Tributary explorer</h1>
  <p id="total" role="status" aria-live="polite">Loading counts…</p>
  <nav><a href="/">API documentation</a></nav>
</header>
<p id="problem" role="alert" hidden></p>
<div class="layout">
  <aside aria-label="Filters">
    <details id="filters" open>
      <summary><h2>Filters</h2> <span id="filters-chosen"></span></summary>
      <p id="facets-note" class="status" hidden>Inside a drawn shape the total above is counted exactly; the counts beside each filter are not cut to the shape.</p>
      <p id="view-line"><label for="view">Show</label>
        <select id="view">
          <option value="observations">Observations</option>
          <option value="comparisons">Guideline comparisons (the governing one per result, publisher and term)</option>
          <option value="exceeds">Exceedances only (governing comparisons)</option>
        </select></p>
      <form id="facets"></form>
      <button type="button" id="clear">Clear all filters</button>
    </details>
  </aside>
  <main id="results">
    <section id="map-section" aria-labelledby="map-title">
      <h2 id="map-title">Monitoring locations</h2>
      <p id="map-colour-line" hidden><label for="map-colour">Colour the locations by</label> <select id="map-colour"></select></p>
      <div id="map" role="region" aria-label="Map of the matching monitoring locations; click one to see it and chart it, click a region's outline to select it"></div>
      <div id="area-tools" role="group" aria-label="Select by area">
        <button type="button" id="shape-draw" aria-pressed="false">Draw a shape</button>
        <button type="button" id="shape-close" disabled>Close the shape</button>
        <button type="button" id="shape-clear" disabled>Clear the shape</button>
        <label for="watershed">Region or watershed</label>
        <select id="watershed"></select>
      </div>
      <p id="shape-status" class="status" role="status"></p>
      <p id="map-status" class="status" role="status"></p>
      <p id="map-legend" class="status" hidden></p>
      <div id="trend-legend" class="status" hidden></div>
      <details id="trend-sites" hidden><summary></summary><div class="table-wrap" tabindex="0" role="region" aria-label="Each location's trend, scrollable"><table><caption>Each location's trend over the period: the map's colours in words</caption></table></div></details>
    </section>
    <section id="chart-section" aria-labelledby="chart-title">
      <h2 id="chart-title">Values over time</h2>
      <div id="chart-controls">
        <label for="chart-location">Location</label>
        <select id="chart-location"></select>
        <button type="button" id="chart-add">Add to chart</button>
      </div>
      <ul id="chart-chosen" aria-label="Locations on the chart"></ul>
      <figure id="chart"><div class="plot"></div><figcaption id="chart-note" class="status" aria-live="polite"></figcaption></figure>
      <div id="chart-trend" aria-live="polite"></div>
    </section>
    <section id="citations" aria-labelledby="citations-title">
      <h2 id="citations-title">Cite the data</h2>
      <p id="citation-summary" class="status" role="status"></p>
      <ul id="citation-list"></ul>
      <p id="citation-downloads"></p>
    </section>
    <section id="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <div class="table-wrap" tabindex="0" aria-label="Preview rows, scrollable">
        <table><caption>Observations under the filters, in Id order</caption><thead></thead><tbody></tbody></table>
      </div>
      <p class="status" role="status"></p>
      <button type="button" class="first">First page</button>
      <button type="button" class="next">Next page</button>
    </section>
    <section id="take-away" aria-labelledby="take-away-title">
      <h2 id="take-away-title">Take it away</h2>
      <button type="button" class="download">Download CSV</button>
      ${exportsLine}
      <p class="download-status status" role="status"></p>
      <div class="confirm" role="group" aria-label="Confirm a large download" hidden>
        <p></p>
        <button type="button" class="yes">Download all</button>
        <button type="button" class="no">Cancel</button>
      </div>
      <p class="pinned">
        <a class="pinned" href="">This selection, pinned to its publication</a>: the same rows whatever is published later, while the publication is kept.
        <button type="button" class="copy-pinned">Copy pinned link</button>
      </p>
      <p>
        <label>Copy the request as <select class="language"></select></label>
        <button type="button" class="copy">Copy</button>
      </p>
      <pre class="snippet" tabindex="0" aria-label="Request snippet"><code></code></pre>
      <p class="status">Scripts outside this page send their key from <code>TRIBUTARY_API_KEY</code>; the page itself uses none.</p>
    </section>
    <section id="dataset-files" aria-labelledby="dataset-files-title">
      <h2 id="dataset-files-title">Dataset files</h2>
      <p>Each dataset behind the selection, whole, as one file per format (<a href="${PATHS.downloads}">all files</a>)${config.bulkNeedsKey ? `; these files ${KEY_NEEDED}` : ':'}</p>
      <ul id="file-list"></ul>
    </section>
  </main>
</div>
<noscript><p>The explorer needs JavaScript. Without it, the API documentation at <a href="/">/</a> shows every request by example.</p></noscript>
</body>
</html>
`;
}

/**
 * The explorer page: facets → map, chart, preview, take-away and citations, all from the public API. The
 * selection lives in the URL; a facet click re-counts from the cube at once (no request), then the panels that
 * need rows reload after a short pause, cancelling what the previous click started.
 */
import './explore.css';
import { ApiProblem, allRows, getJson, query, setRetryNotice } from './api.js';
import { chartPanel } from './chart-panel.js';
import { loadCitation, showCitations, type Dataset } from './citations-panel.js';
import { loadDownloads, showDatasetFiles } from './files-panel.js';
import { EXCEEDANCES, facetCounts, loadCube, type Cube, type Facet } from './cube.js';
import { byId, fmt, h, say } from './dom.js';
import { facetsPanel } from './facets-panel.js';
import { mapPanel, SHARE_CLASSES, type MapLocation, type Share } from './map-panel.js';
import { previewPanel } from './preview-panel.js';
import { andFilter, emptySelection, filterText, GOVERNING, LIST_FACETS, MAX_CHART_LOCATIONS, rowsOf, searchOfSelection, selectionFromSearch, VIEWS, type Selection } from './selection.js';
import { takeAwayPanel } from './take-away-panel.js';
import { loadTrendPeriods, trendsLayer } from './trends-layer.js';
import { PATHS } from '../http/paths.js';
import type { Shape } from './shape.js';
import { watershedPicker } from './watershed-picker.js';

interface PageConfig {
  readonly tileUrl?: string;
  readonly tileAttribution?: string;
  /** Keys are required: exports and dataset files need one, which the page does not hold (routes/explore.ts). */
  readonly bulkNeedsKey?: boolean;
}

const config = JSON.parse(byId('explore-config').textContent ?? '{}') as PageConfig;
const problem = byId('problem');
const totalLine = byId('total');
const results = byId('results');

function showError(err: unknown): void {
  if (err instanceof DOMException && err.name === 'AbortError') return;
  const text = err instanceof ApiProblem || err instanceof Error ? err.message : String(err);
  problem.hidden = false;
  say(problem, `${text} The page keeps working: change the selection or try again.`, 'error');
}
setRetryNotice((status, seconds) => {
  problem.hidden = false;
  say(problem, `The API is busy (${status}): retrying in ${seconds} s…`);
});

const fetchStatic = async (path: string): Promise<object> => {
  const res = await fetch(path);
  return res.ok ? ((await res.json()) as object) : { type: 'FeatureCollection', features: [] };
};

async function boot(): Promise<void> {
  const [datasetRows, cube, provinces, regions, downloads, trendPeriods] = await Promise.all([
    allRows<Dataset>(`/Metadata${query({ $select: 'DOI,DatasetName,Citation,Licence,ValidationLevel', $top: '10000' })}`),
    loadCube(),
    fetchStatic('/explore/assets/provinces.json'),
    // The regions collection (hubs, watershed sets): all of them in one page; none when the API has none.
    fetchStatic(`${PATHS.features}/collections/regions/items?limit=10000`),
    loadDownloads(),
    loadTrendPeriods(),
  ]);
  const datasets = new Map(datasetRows.rows.map((d) => [d.DOI, d]));
  const regionNames = new Map<string, string>([['admin.2.ca', 'Canada'], ['admin.2.us', 'United States'], ['admin.2.au', 'Australia'], ['admin.2.ch', 'Switzerland']]);
  for (const fc of [provinces, regions] as { features?: { properties?: Record<string, unknown> }[] }[])
    for (const f of fc.features ?? []) if (typeof f.properties?.['RegionId'] === 'string') regionNames.set(f.properties['RegionId'], String(f.properties['name'] ?? f.properties['Name'] ?? f.properties['RegionId']));
  const label = (f: Facet, v: string): string => (f === 'DOI' ? datasets.get(v)?.DatasetName ?? v : f === 'RegionId' ? regionNames.get(v) ?? v : v);

  let selection: Selection = selectionFromSearch(location.search);
  let inFlight: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** A map load is running / waiting for its timer. */
  let loadingMap = false;
  let pendingMap = false;
  const names = new Map<number, string>();
  /** The locations the map shows now. */
  let shown: ReadonlySet<number> = new Set();

  const facets = facetsPanel(byId('facets'), label, (s) => {
    performance.mark('facet-start');
    change(s);
  });
  const map = mapPanel(byId('map'), config, { provinces, regions }, pick, {
    controls: { draw: byId<HTMLButtonElement>('shape-draw'), close: byId<HTMLButtonElement>('shape-close'), clear: byId<HTMLButtonElement>('shape-clear'), status: byId('shape-status') },
    onRegion: (region) => change({ ...selection, region: selection.region === region ? null : region }),
    onShape: (shape: Shape | null) => change({ ...selection, shape }),
  });
  const watersheds = watershedPicker(byId<HTMLSelectElement>('watershed'), regions, (region) => change({ ...selection, region }));
  /** The exact count inside the drawn shape (the cube cannot cut by a polygon), for the selection it was asked for. */
  let shapeCount: { filter: string; total: number } | undefined;
  /** The count of the comparisons the page shows when it shows them (the exceedances' cube gives it outside a shape). */
  let viewCount: { key: string; total: number } | undefined;
  const viewKey = (): string => JSON.stringify(rowsOf(selection));
  const view = byId<HTMLSelectElement>('view');
  view.addEventListener('change', () => change({ ...selection, view: VIEWS.find((v) => v === view.value) ?? 'observations' }));
  const chart = chartPanel(byId('chart'), byId('chart-note'), byId('chart-trend'));
  const trends = trendsLayer({ select: byId<HTMLSelectElement>('map-colour'), legend: byId('trend-legend'), sites: byId<HTMLDetailsElement>('trend-sites') }, trendPeriods, (trend) => change({ ...selection, trend }));
  const preview = previewPanel(byId('preview'), showError);
  const takeAway = takeAwayPanel(byId('take-away'), showError);
  const chartPicker = byId<HTMLSelectElement>('chart-location');
  byId('map-legend').replaceChildren(h('span', {}, 'Share of governing guideline comparisons (one per result, publisher and term) that exceed:'),
    ...SHARE_CLASSES.map(([, fill, label]) => h('span', { class: 'swatch' }, h('span', { class: 'dot', style: `background:${fill}` }), label)),
    h('span', { class: 'swatch' }, h('span', { class: 'dot', style: 'background:#2563eb' }), 'none (or no guideline)'));
  // The exceedances' cube arrives after the page is usable: the facets gain their counts when it does. A
  // publication without comparisons (or an API that refuses them) leaves the facets as they are.
  let exceedances: Cube | undefined;
  void loadCube(EXCEEDANCES)
    .then((c) => {
      exceedances = c;
      renderCounts();
    })
    .catch(() => {});

  function renderCounts(): void {
    const counts = facetCounts(cube, selection);
    const exceeding = exceedances ? facetCounts(exceedances, selection) : undefined;
    facets.render(counts, selection, exceeding);
    const filter = filterText(selection);
    const exact = selection.shape ? (shapeCount?.filter === filter ? shapeCount.total : undefined) : counts.total;
    // Exceedances come from the cube too, so inside a shape (which it cannot cut) they are not said.
    const exceed = exceeding && !selection.shape ? `; ${fmt(exceeding.total)} comparisons with a guideline exceed it` : '';
    say(totalLine, exact === undefined ? 'Counting the observations inside the shape…' : `${fmt(exact)} observations match${selection.shape ? ' inside the drawn shape' : ''}${exceed}`);
    totalLine.dataset['total'] = exact === undefined ? '' : String(exact);
    byId('facets-note').hidden = !selection.shape;
    const chosen = LIST_FACETS.reduce((n, f) => n + selection.lists[f].length, 0) + (selection.region ? 1 : 0) + (selection.shape ? 1 : 0) + (selection.yearFrom !== null || selection.yearTo !== null ? 1 : 0);
    byId('filters-chosen').textContent = chosen ? `(${chosen} chosen)` : '';
    const dois = [...counts.counts.DOI].filter(([doi, n]) => n > 0 && (selection.lists.DOI.length === 0 || selection.lists.DOI.includes(doi))).map(([doi]) => doi);
    // Inside a shape, the datasets are those of the matching locations (set when the map's locations arrive).
    if (!selection.shape) showDatasets(dois);
    view.value = selection.view;
    const shown = selection.view === 'observations' ? exact ?? counts.total
      : selection.view === 'exceeds' && exceeding && !selection.shape ? exceeding.total
      : viewCount?.key === viewKey() ? viewCount.total : undefined;
    takeAway.show(rowsOf(selection), shown);
    map.setArea(selection.region, selection.shape);
    watersheds.show(selection.region);
    trends.show(selection);
    renderChosen();
  }

  /** The dataset files of the selection; its citation is the API's (loadCitation, with the panels). */
  function showDatasets(dois: readonly string[]): void {
    showDatasetFiles(byId('file-list'), downloads, dois, config.bulkNeedsKey);
  }

  /** The exact count of a shape's selection from the API, then the counts redrawn with it. */
  async function countShape(signal: AbortSignal): Promise<void> {
    const filter = filterText(selection);
    if (!selection.shape || shapeCount?.filter === filter) return;
    let value: number;
    try {
      ({ value } = await getJson<{ value: number }>(`/Observations${query({ $filter: filter, $count: 'true' })}`, signal));
    } catch (err) {
      if (!signal.aborted) say(totalLine, 'The observations inside the shape could not be counted: the message below says why.', 'error');
      throw err;
    }
    if (signal.aborted) return;
    shapeCount = { filter, total: value };
    renderCounts();
  }

  /** The exact count of the comparisons shown, when the cubes cannot give it; then the take-away's total with it. */
  async function countView(signal: AbortSignal): Promise<void> {
    const key = viewKey();
    if (selection.view === 'observations' || (selection.view === 'exceeds' && exceedances && !selection.shape) || viewCount?.key === key) return;
    const { resource, filter } = rowsOf(selection);
    const { value } = await getJson<{ value: number }>(`/${resource}${query({ $filter: filter, $count: 'true' })}`, signal);
    if (signal.aborted) return;
    viewCount = { key, total: value };
    renderCounts();
  }

  function renderChosen(): void {
    byId('chart-chosen').replaceChildren(...selection.locations.map((id) =>
      h('li', {}, names.get(id) ?? `Location ${id}`, ' ',
        h('button', { type: 'button', 'aria-label': `Remove ${names.get(id) ?? `location ${id}`} from the chart`, onclick: () => pick(id) }, '×'))));
  }

  async function loadPanels(signal: AbortSignal, withMap: boolean): Promise<void> {
    const filter = filterText(selection);
    const chars = selection.lists.CharacteristicName;
    const jobs: Promise<void>[] = [];
    let located: Promise<void> = Promise.resolve();
    if (withMap) {
      loadingMap = true;
      say(byId('map-status'), 'Loading locations…');
      jobs.push(located = allRows<MapLocation & { DOI: string }>(`/Locations${query({ $filter: filter, $select: 'Id,ID,Name,Latitude,Longitude,MonitoringLocationType,DOI', $top: '10000' })}`, signal, 5).then(({ rows, complete }) => {
        for (const l of rows) names.set(l.Id, l.Name);
        shown = new Set(rows.map((l) => l.Id));
        if (selection.shape) showDatasets([...new Set(rows.map((l) => l.DOI))].filter((doi) => selection.lists.DOI.length === 0 || selection.lists.DOI.includes(doi)));
        map.show(rows, selection.locations, filter, selection.lists.CharacteristicName);
        const sorted = [...rows].sort((a, b) => a.Name.localeCompare(b.Name)).slice(0, 1000);
        chartPicker.replaceChildren(...sorted.map((l) => new Option(`${l.Name} (${l.ID})`, String(l.Id))));
        say(byId('map-status'), `${fmt(rows.length)} matching locations${complete ? '' : ' (the first ones only)'}.`);
        renderChosen();
      }));
      if (selection.trend) {
        // With a trend period picked, the markers show each location's trend over it instead: one request (trends-layer.ts).
        byId('map-legend').hidden = true;
        jobs.push(located.then(() => trends.load(selection, names, shown, signal)).then((marks) => void (signal.aborted || map.setTrends(marks ?? null))));
      }
      // After the locations (whose markers it colours): each location's share of exceedances under the filter, one
      // groupby of the governing comparisons (one per result, publisher and term). A publication without
      // comparisons, or a filter they cannot take, leaves the markers plain.
      else jobs.push(located.then(() => allRows<{ LocationId: number; Verdict: string; N: number }>(`/GuidelineComparisons${query({ $apply: 'groupby((LocationId,Verdict),aggregate($count as N))', $filter: andFilter(filter, GOVERNING), $top: '10000' })}`, signal, 5))
        .then(({ rows }) => {
          const shares = new Map<number, Share>();
          for (const r of rows) {
            const s = shares.get(r.LocationId) ?? { exceeds: 0, total: 0 };
            shares.set(r.LocationId, { exceeds: s.exceeds + (r.Verdict === 'exceeds' ? r.N : 0), total: s.total + r.N });
          }
          if (signal.aborted) return;
          map.setShares(shares);
          byId('map-legend').hidden = ![...shares.values()].some((s) => s.exceeds > 0);
        }, (err: unknown) => {
          if (signal.aborted || !(err instanceof ApiProblem) || (err.status !== 400 && err.status !== 404)) throw err;
        }));
      jobs.push(preview.show(rowsOf(selection), signal));
      jobs.push(countView(signal));
      // The datasets to credit and their rows, as the API cites the same filter.
      jobs.push(loadCitation(filter, signal).then((citation) => showCitations(byId('citations'), filter, citation, datasets)));
      jobs.push(countShape(signal));
    }
    // After the locations: the chart's legend names them.
    jobs.push(located.catch(() => {}).then(() => chart.show(chars.length === 1 ? chars[0] : undefined, selection.locations, names, filter, signal, selection.trend)));
    const outcomes = await Promise.allSettled(jobs);
    const failed = outcomes.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (signal.aborted) return;
    if (withMap) loadingMap = false;
    results.removeAttribute('aria-busy');
    if (failed) showError(failed.reason);
    else problem.hidden = true;
  }

  /**
   * Reload the row panels a moment after the last click (counts were redrawn already), cancelling the previous
   * load. A chart-only reload that cancels a map load takes the map load over, or the map would keep old points.
   */
  function schedule(withMap: boolean): void {
    clearTimeout(timer);
    inFlight?.abort();
    const map = withMap || loadingMap || pendingMap;
    pendingMap = map;
    const controller = (inFlight = new AbortController());
    results.setAttribute('aria-busy', 'true');
    timer = setTimeout(() => {
      pendingMap = false;
      void loadPanels(controller.signal, map);
    }, 200);
  }

  function change(next: Selection, push = true): void {
    selection = next;
    if (push) history.pushState(null, '', `/explore${searchOfSelection(selection)}`);
    renderCounts();
    if (performance.getEntriesByName('facet-start').length) {
      // Click to counts on screen: the frame after this one starts once the new counts are painted.
      requestAnimationFrame(() => setTimeout(() => {
        performance.measure('facet-update', 'facet-start');
        performance.clearMarks('facet-start');
      }));
    }
    schedule(true);
  }

  function pick(id: number): void {
    const rest = selection.locations.filter((l) => l !== id);
    const locations = rest.length === selection.locations.length ? [...rest, id].slice(-MAX_CHART_LOCATIONS) : rest;
    selection = { ...selection, locations };
    history.pushState(null, '', `/explore${searchOfSelection(selection)}`);
    map.setChosen(locations);
    renderChosen();
    schedule(false);
  }

  byId('chart-add').addEventListener('click', () => chartPicker.value && !selection.locations.includes(Number(chartPicker.value)) && pick(Number(chartPicker.value)));
  byId('facets').addEventListener('submit', (e) => e.preventDefault());
  // On a phone the filters would push every result below a screen of checkboxes: they start folded.
  if (matchMedia('(max-width: 800px)').matches) byId<HTMLDetailsElement>('filters').open = false;
  byId('clear').addEventListener('click', () => change(emptySelection()));
  addEventListener('popstate', () => change(selectionFromSearch(location.search), false));
  change(selection, false);
}

boot().catch((err) => {
  showError(err);
  say(totalLine, 'The explorer could not load its counts.', 'error');
  // Without counts no panel can work: starting over is the one way on.
  problem.append(' ', h('button', { type: 'button', onclick: () => location.reload() }, 'Try again'));
});

/**
 * The map: provinces and the configured regions (hubs, watersheds: the API's `regions` collection) drawn as
 * vectors from what the API serves, so it works with no tile server; a raster tile layer below them when the
 * operator sets EXPLORE_TILE_URL. Matching locations are circle markers on one canvas (thousands draw smoothly).
 * Clicking one shows its name, ID, type and its observation count under the current filters, and picks it for the
 * chart; clicking a region's outline selects that region; a polygon can be drawn (draw-shape.ts). A location with
 * exceedances under the filters is filled by its share of them among its guideline comparisons (issue 45), or, when
 * a trend period is picked, every location by its trend (issue 54: trends-layer.ts).
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { getJson, query, type Page } from './api.js';
import { fmt, h } from './dom.js';
import { drawShape, type ShapeControls } from './draw-shape.js';
import { andFilter, quote } from './selection.js';
import type { Shape } from './shape.js';
import { NO_TREND } from './trend-classes.js';
import type { TrendMark } from './trends-layer.js';

export interface MapLocation {
  readonly Id: number;
  readonly ID: string;
  readonly Name: string;
  readonly Latitude: number;
  readonly Longitude: number;
  readonly MonitoringLocationType: string;
}

export interface MapConfig {
  readonly tileUrl?: string;
  readonly tileAttribution?: string;
}

/** A location's guideline comparisons under the filters: how many, and how many exceed. */
export interface Share {
  readonly exceeds: number;
  readonly total: number;
}

/** Fills by share of exceedances, upper bounds of each class; no exceedance keeps the plain marker. */
export const SHARE_CLASSES: readonly (readonly [upTo: number, fill: string, label: string])[] = [
  [0.1, '#facc15', 'up to 10 %'],
  [0.25, '#f97316', '10–25 %'],
  [0.5, '#dc2626', '25–50 %'],
  [1, '#7f1d1d', 'over 50 %'],
];

export interface MapPanel {
  /** `characteristics`: the ones chosen (none: all), whose summaries a location's popup shows. */
  show(locations: readonly MapLocation[], chosen: readonly number[], filter: string, characteristics?: readonly string[]): void;
  setChosen(chosen: readonly number[]): void;
  /** Each shown location's comparisons under the filter the locations were shown for. */
  setShares(shares: ReadonlyMap<number, Share>): void;
  /** Each shown location's trend (a location without one: no observation in the period); null: back to the shares. */
  setTrends(trends: ReadonlyMap<number, TrendMark> | null): void;
  /** The selection's region (its outline highlighted) and drawn shape. */
  setArea(region: string | null, shape: Shape | null): void;
}

/** What the map hands back besides a picked location: a region clicked, a shape drawn or cleared. */
export interface AreaHandlers {
  readonly controls: ShapeControls;
  readonly onRegion: (regionId: string) => void;
  readonly onShape: (shape: Shape | null) => void;
}

const CANADA: L.LatLngBoundsExpression = [[41.7, -141], [70, -52.6]];

export function mapPanel(el: HTMLElement, config: MapConfig, boundaries: { provinces: object; regions: object }, onPick: (id: number) => void, area: AreaHandlers): MapPanel {
  const map = L.map(el, { preferCanvas: true, zoomSnap: 0.25, attributionControl: Boolean(config.tileUrl) }).fitBounds(CANADA);
  if (config.tileUrl) L.tileLayer(config.tileUrl, { attribution: config.tileAttribution ?? '', maxZoom: 18 }).addTo(map);
  const name = (f: GeoJSON.Feature | undefined) => String(f?.properties?.['name'] ?? f?.properties?.['Name'] ?? f?.properties?.['RegionId'] ?? '');
  L.geoJSON(boundaries.provinces as GeoJSON.FeatureCollection, { style: { color: '#6b7280', weight: 1, fillColor: '#e5e7eb', fillOpacity: config.tileUrl ? 0.1 : 0.6 }, interactive: false }).addTo(map);
  const shape = drawShape(map, area.controls, area.onShape);
  let region: string | null = null;
  const regionId = (f: GeoJSON.Feature | undefined) => String(f?.properties?.['RegionId'] ?? '');
  // A filled but nearly transparent outline: a click anywhere inside picks the region, not only on its edge.
  const regionStyle = (f: GeoJSON.Feature | undefined): L.PathOptions =>
    regionId(f) === region ? { color: '#7c3aed', weight: 3, fillColor: '#7c3aed', fillOpacity: 0.15 } : { color: '#7c3aed', weight: 2, dashArray: '6 4', fillOpacity: 0.01 };
  const regions = L.geoJSON(boundaries.regions as GeoJSON.FeatureCollection, { style: regionStyle })
    .bindTooltip((layer) => name((layer as L.GeoJSON).feature as GeoJSON.Feature), { sticky: true })
    .on('click', (e) => {
      const id = regionId((e.propagatedFrom as L.GeoJSON).feature as GeoJSON.Feature);
      if (!shape.drawing() && id) area.onRegion(id);
    })
    .addTo(map);
  let points: L.FeatureGroup = L.featureGroup().addTo(map);
  const markers = new Map<number, L.CircleMarker>();
  let chosen = new Set<number>();
  let filter = '';
  let characteristics: readonly string[] = [];
  let shares: ReadonlyMap<number, Share> = new Map();
  let trends: ReadonlyMap<number, TrendMark> | null = null;

  const fillOf = (id: number): string | undefined => {
    const s = shares.get(id);
    if (!s || s.exceeds === 0) return undefined;
    return SHARE_CLASSES.find(([upTo]) => s.exceeds / s.total <= upTo)![1];
  };
  const style = (id: number): L.CircleMarkerOptions => {
    if (trends) return trendStyle(trends.get(id)?.klass ?? NO_TREND, chosen.has(id));
    if (chosen.has(id)) return { radius: 7, color: '#111827', weight: 2, fillColor: '#f59e0b', fillOpacity: 1 };
    const fill = fillOf(id);
    return fill ? { radius: 5, color: '#111827', weight: 1, fillColor: fill, fillOpacity: 0.9 } : { radius: 4, color: '#1e3a8a', weight: 1, fillColor: '#2563eb', fillOpacity: 0.8 };
  };
  const shareText = (id: number): string => {
    if (trends) return `: ${trends.get(id)?.text ?? NO_TREND.label}`;
    const s = shares.get(id);
    return s ? `: ${fmt(s.exceeds)} of ${fmt(s.total)} governing guideline comparisons exceed` : '';
  };

  async function popupFor(loc: MapLocation, marker: L.CircleMarker): Promise<void> {
    const count = h('span', {}, 'counting…');
    const summary = h('div', { class: 'summary' });
    marker.bindPopup(h('div', { class: 'popup' },
      h('strong', {}, loc.Name), h('br'), `ID ${loc.ID} · Id ${loc.Id}`, h('br'), loc.MonitoringLocationType, h('br'), count, ' observations under the current filters', summary)).openPopup();
    await Promise.all([
      getJson<{ value: number }>(`/Observations${query({ $filter: andFilter(filter, `LocationId eq ${loc.Id}`), $count: 'true' })}`)
        .then((n) => void (count.textContent = fmt(n.value)))
        .catch((err: Error) => void (count.textContent = `(${err.message})`)),
      summaryOf(loc.Id, characteristics).then((table) => summary.replaceChildren(table)).catch(() => summary.replaceChildren()),
    ]);
  }

  function refreshStyles(): void {
    for (const [id, m] of markers) m.setStyle(style(id));
  }

  return {
    show(locations, picked, currentFilter, chosenCharacteristics = []) {
      performance.mark('map-start');
      filter = currentFilter;
      characteristics = chosenCharacteristics;
      chosen = new Set(picked);
      shares = new Map();
      trends = null;
      delete el.dataset['shares'];
      delete el.dataset['trends'];
      points.remove();
      markers.clear();
      // Frame first, then add every marker at once: one projection and one canvas redraw, not one per marker.
      if (locations.length) map.fitBounds(L.latLngBounds(locations.map((l) => [l.Latitude, l.Longitude] as L.LatLngTuple)).pad(0.1), { maxZoom: 7, animate: false });
      const locationOf = new Map<L.Layer, MapLocation>();
      for (const loc of locations) {
        const m = L.circleMarker([loc.Latitude, loc.Longitude], style(loc.Id));
        markers.set(loc.Id, m);
        locationOf.set(m, loc);
      }
      // One tooltip and one click handler for the group: thousands of per-marker ones cost more than the drawing.
      points = L.featureGroup([...markers.values()])
        .bindTooltip((layer) => {
          const loc = locationOf.get(layer);
          return loc ? `${loc.Name}${shareText(loc.Id)}` : '';
        })
        .on('click', (e) => {
          const loc = locationOf.get(e.propagatedFrom as L.Layer);
          if (!loc || shape.drawing()) return;
          onPick(loc.Id);
          void popupFor(loc, e.propagatedFrom as L.CircleMarker);
        })
        .addTo(map);
      el.dataset['points'] = String(locations.length);
      // Markers added to the canvas until they are on screen (the frame after the next one starts after its paint).
      requestAnimationFrame(() => setTimeout(() => performance.measure('map-draw', 'map-start')));
    },
    setChosen(picked) {
      chosen = new Set(picked);
      refreshStyles();
    },
    setShares(next) {
      shares = new Map([...next].filter(([id]) => markers.has(id)));
      refreshStyles();
      // What the test reads: each coloured location's exceedances of its comparisons.
      el.dataset['shares'] = [...shares].filter(([, s]) => s.exceeds > 0).map(([id, s]) => `${id}:${s.exceeds}/${s.total}`).join(',');
    },
    setTrends(next) {
      trends = next && new Map([...next].filter(([id]) => markers.has(id)));
      refreshStyles();
      // What the test reads: each location's class.
      if (trends) el.dataset['trends'] = [...markers.keys()].map((id) => `${id}:${trends!.get(id)?.klass.value ?? NO_TREND.value}`).join(',');
      else delete el.dataset['trends'];
    },
    setArea(picked, drawn) {
      region = picked;
      regions.setStyle((f) => regionStyle(f));
      shape.show(drawn);
    },
  };
}

/** A location drawn by its trend's class; one picked for the chart keeps its class inside a thick ring. */
function trendStyle(klass: TrendMark['klass'], picked: boolean): L.CircleMarkerOptions {
  const base = { radius: klass.radius, color: klass.stroke, weight: 1, fillColor: klass.fill, fillOpacity: 1, dashArray: klass.dashed ? '2 2' : undefined };
  return picked ? { ...base, radius: klass.radius + 2, color: '#111827', weight: 3, dashArray: undefined } : base;
}

interface SummaryRow {
  readonly CharacteristicName: string;
  readonly ResultUnit: string | null;
  readonly P10Qualifier: string | null;
  readonly P10: number | null;
  readonly MedianQualifier: string | null;
  readonly Median: number | null;
  readonly P90Qualifier: string | null;
  readonly P90: number | null;
  readonly LatestValue: number | null;
  readonly LatestDetectionCondition: string | null;
  readonly LatestDate: string;
}

/** Rows of a popup's summary at most: the location's page has them all. */
const SUMMARY_ROWS = 8;
const digits = (v: number | null): string => (v === null ? '–' : String(Number(v.toPrecision(3))));
/** A statistic as a laboratory writes a result below its limit (issue 52): `<0.005`, `>2420`. */
const qualified = (q: string | null, v: number | null): string => (v === null ? '–' : `${q ?? ''}${digits(v)}`);

/**
 * Issue 48 part 4: the location's summary (/LocationSummaries, its whole record) of the characteristics chosen, or
 * of its first ones when none is: median with P10–P90, each with its qualifier (`<0.005`), and the latest result.
 */
async function summaryOf(locationId: number, characteristics: readonly string[]): Promise<HTMLElement> {
  const which = characteristics.length === 0 ? '' : characteristics.length === 1 ? `CharacteristicName eq ${quote(characteristics[0]!)}` : `CharacteristicName in (${characteristics.map(quote).join(',')})`;
  const select = 'CharacteristicName,ResultUnit,P10Qualifier,P10,MedianQualifier,Median,P90Qualifier,P90,LatestValue,LatestDetectionCondition,LatestDate';
  const page = await getJson<Page<SummaryRow>>(`/LocationSummaries${query({ $filter: andFilter(`LocationId eq ${locationId}`, which), $select: select, $top: String(SUMMARY_ROWS) })}`);
  if (page.value.length === 0) return h('p', {}, 'No summary of these characteristics here.');
  const row = (s: SummaryRow) =>
    h('tr', {},
      h('td', {}, s.CharacteristicName),
      h('td', {}, `${qualified(s.MedianQualifier, s.Median)} (${qualified(s.P10Qualifier, s.P10)}–${qualified(s.P90Qualifier, s.P90)})${s.ResultUnit ? ` ${s.ResultUnit}` : ''}`),
      h('td', {}, `${s.LatestValue === null ? (s.LatestDetectionCondition ?? '–') : digits(s.LatestValue)}, ${s.LatestDate}`));
  return h('table', { class: 'summary' },
    h('caption', {}, 'Whole record here, non-detects counted: median (P10–P90), latest'),
    h('tbody', {}, ...page.value.map(row)),
    page['@odata.nextLink'] ? h('tfoot', {}, h('tr', {}, h('td', { colspan: 3 }, 'More on the location\'s page.'))) : null);
}

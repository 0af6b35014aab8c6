/**
 * The `regions` collection: the regions of REGIONS_FILE (hubs, watershed sets such as huc8 and huc10) with their
 * outlines, names and sets, so the explorer and any GIS client can list them, draw them and filter by their Ids
 * (`RegionId eq 'huc10.1702000805'` on any data path). Unlike the other collections it is not read from the
 * published file: it is the same REGIONS_FILE ingest placed the locations with (the operator gives both the same
 * value, docs/configuration.md), read once per process.
 */
import type { Context } from 'hono';
import { readRegionSets, type RegionFeature } from '../../../schemas/region-sets.js';
import { ApiError } from '../errors.js';
import { encodeValue } from '../http/links.js';
import type { Mount } from '../http/mount.js';
import { PATHS, PIN_PARAM, REGIONS_COLLECTION } from '../http/paths.js';
import { GEOJSON, JSON_MEDIA, link, schemaLinks, SCHEMA_MEDIA } from './feature-links.js';
import { collectionHtml, featureHtml, HTML_CSP, itemsHtml } from './features-html.js';
import { HTML_MEDIA, responseEncoding, withF } from './html-negotiation.js';
import { CRS84, parseBbox } from './items-query.js';

export { REGIONS_COLLECTION };
export const REGIONS_LIMIT = { default: 100, max: 10000 } as const;
/**
 * Most bytes of features in one items page, whatever `limit` says (issue 47 item 9): at a national scale, outlines
 * of thousands of vertices, one request of 10,000 regions was a document built whole on the event loop for seconds.
 * A page stops before the feature that would pass this (it always holds one), and its next link goes on from there;
 * each feature's JSON is written once per process and kept, so a page costs its bytes' copying, metered by this cap.
 */
export const REGIONS_PAGE_BYTES = 4 * 1024 * 1024;
const PARAMETERS = ['limit', 'offset', 'bbox', 'bbox-crs', 'set', 'f', PIN_PARAM] as const;

/** The regions, read on first use and kept: a file that cannot be read answers 503 with its problem until fixed and restarted. */
export type RegionSource = () => Promise<readonly RegionFeature[]>;

export function regionSource(regionsFile: string | undefined): RegionSource {
  let loaded: Promise<readonly RegionFeature[]> | undefined;
  return () => {
    loaded ??= readRegionSets(regionsFile).catch((err: Error) => {
      throw new ApiError('unavailable', `The regions could not be read: ${err.message}. The operator fixes REGIONS_FILE and restarts the API.`);
    });
    return loaded;
  };
}

const url = (base: string) => `${base}${PATHS.features}/collections/${REGIONS_COLLECTION}`;

/** The collection's description, as /collections lists it. */
export async function describeRegions(base: string, regions: RegionSource) {
  const all = await regions();
  const sets = [...new Set(all.map((r) => r.set))];
  const bbox = all.reduce<number[] | undefined>((b, r) => (b ? [Math.min(b[0]!, r.bbox[0]), Math.min(b[1]!, r.bbox[1]), Math.max(b[2]!, r.bbox[2]), Math.max(b[3]!, r.bbox[3])] : [...r.bbox]), undefined);
  return {
    id: REGIONS_COLLECTION,
    title: 'Regions',
    description: `The regions locations are placed in at ingest (RegionId), with their outlines: ${sets.length ? `sets ${sets.join(', ')}` : 'none configured'}. Filter any data path by one with RegionId eq '<id>'; the countries and subdivisions (admin.*) are not listed here.`,
    itemType: 'feature',
    crs: [CRS84],
    ...(bbox ? { extent: { spatial: { bbox: [bbox], crs: CRS84 } } } : {}),
    links: [
      link(url(base), 'self', JSON_MEDIA, 'Regions'),
      link(`${url(base)}/items`, 'items', GEOJSON, 'Regions as GeoJSON'),
      link(withF(`${url(base)}/items`, 'html'), 'items', HTML_MEDIA, 'Regions as HTML'),
      link(withF(url(base), 'html'), 'alternate', HTML_MEDIA, 'This document as HTML'),
      link(`${url(base)}/queryables`, 'http://www.opengis.net/def/rel/ogc/1.0/queryables', SCHEMA_MEDIA, 'The fields it filters by'),
      ...schemaLinks(url(base)),
    ],
  };
}

const HTML_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': HTML_CSP, Vary: 'Accept' };
const REGIONS = { id: REGIONS_COLLECTION, title: 'Regions' };

/** A region as the HTML pages show a feature: its outline's bounding box centre marks it on the map. */
const shown = (r: RegionFeature) => ({
  id: r.id,
  geometry: { coordinates: [(r.bbox[0] + r.bbox[2]) / 2, (r.bbox[1] + r.bbox[3]) / 2] as [number, number] },
  properties: { RegionId: r.id, name: r.name, set: r.set, bbox: r.bbox.join(', ') },
});

const feature = (r: RegionFeature) => ({ type: 'Feature', id: r.id, bbox: r.bbox, geometry: r.geometry, properties: { RegionId: r.id, name: r.name, set: r.set } });

/** Each region's feature as JSON, written on first use and kept with the region (the regions are kept per process). */
const written = new WeakMap<RegionFeature, string>();
function featureJson(r: RegionFeature): string {
  let json = written.get(r);
  if (json === undefined) written.set(r, (json = JSON.stringify(feature(r))));
  return json;
}

/** The features of a page from `offset`: at most `limit`, and no more bytes than `maxBytes` unless the first alone. */
export function regionsPage(matched: readonly RegionFeature[], offset: number, limit: number, maxBytes = REGIONS_PAGE_BYTES): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (let i = offset; i < matched.length && out.length < limit; i++) {
    const json = featureJson(matched[i]!);
    if (out.length > 0 && bytes + json.length > maxBytes) break;
    out.push(json);
    bytes += json.length + 1;
  }
  return out;
}

const invalid = (parameter: string, message: string) => new ApiError('invalid_parameter', message, { parameter });

function count(name: 'limit' | 'offset', value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(n >= (name === 'limit' ? 1 : 0) && n <= max)) throw invalid(name, `${name} is a whole number from ${name === 'limit' ? 1 : 0} to ${max}; got '${value}'.`);
  return n;
}

const overlaps = (r: RegionFeature, b: { west: number; south: number; east: number; north: number }) =>
  r.bbox[1] <= b.north && r.bbox[3] >= b.south && (b.west <= b.east ? r.bbox[0] <= b.east && r.bbox[2] >= b.west : r.bbox[2] >= b.west || r.bbox[0] <= b.east);

/** The items parameters: each known, each at most once, each readable; the message names the one that is not. */
function itemsParams(params: URLSearchParams) {
  for (const name of params.keys()) {
    if (!(PARAMETERS as readonly string[]).includes(name)) throw invalid(name, `Unknown parameter '${name}' for the regions: use ${PARAMETERS.join(', ')}.`);
    if (params.getAll(name).length > 1) throw invalid(name, `${name} is given more than once; give it once (set takes a comma-separated list).`);
  }
  const single = (name: string) => params.get(name) ?? undefined;
  if (single('bbox-crs') !== undefined && single('bbox-crs') !== CRS84) throw invalid('bbox-crs', `bbox-crs can only be ${CRS84}; got '${single('bbox-crs')}'.`);
  const f = single('f');
  if (f !== undefined && f !== 'json' && f !== 'geojson' && f !== 'html') throw invalid('f', `f can be json (GeoJSON, the default) or html (a page for a browser); got '${f}'.`);
  return {
    limit: count('limit', single('limit'), REGIONS_LIMIT.default, REGIONS_LIMIT.max),
    offset: count('offset', single('offset'), 0, 1e9),
    bbox: single('bbox') === undefined ? undefined : parseBbox(single('bbox')!),
    sets: single('set')?.split(',').map((s) => s.trim()).filter(Boolean),
  };
}

/** Registers the collection's routes; called before the generic collection routes, which would take `regions` for a resource. */
export function registerRegions(mount: Mount, regions: RegionSource): void {
  const base = (c: Context) => c.get('base');
  // Every collection has its HTML (features.md): the regions' pages are the others', each region marked by its box.
  mount('regionsCollection', async (c) => {
    const doc = await describeRegions(base(c), regions);
    if (responseEncoding(c) === 'html') return c.body(collectionHtml(base(c), url(base(c)), doc), 200, HTML_HEADERS);
    return c.json(doc, 200, { Vary: 'Accept' });
  });
  mount('regionsQueryables', (c) =>
    c.body(JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${url(base(c))}/queryables`,
      type: 'object',
      title: 'Regions',
      properties: {
        RegionId: { type: 'string', description: "The region's Id, as RegionId eq '<id>' filters the data by it" },
        name: { type: 'string', description: "The region's name in its source" },
        set: { type: 'string', description: 'The set it belongs to (huc8, huc10, hub, …); the items parameter set= selects one or more' },
      },
    }), 200, { 'Content-Type': SCHEMA_MEDIA }));

  mount('regionsItems', async (c) => {
    const params = new URL(c.req.url).searchParams;
    const { limit, offset, bbox, sets } = itemsParams(params);
    const all = await regions();
    if (sets) {
      const known = new Set(all.map((r) => r.set));
      const unknown = sets.filter((s) => !known.has(s));
      if (unknown.length) throw invalid('set', `No region set '${unknown[0]}'. The sets are: ${[...known].join(', ') || 'none (REGIONS_FILE is not set)'}.`);
    }
    const matched = all.filter((r) => (!sets || sets.includes(r.set)) && (!bbox || overlaps(r, bbox)));
    const html = responseEncoding(c) === 'html';
    const page = regionsPage(matched, offset, limit);
    const b = base(c);
    const itemsUrl = (pairs: readonly (readonly [string, string])[]) =>
      `${url(b)}/items${pairs.length ? `?${pairs.map(([k, v]) => `${encodeValue(k)}=${encodeValue(v)}`).join('&')}` : ''}`;
    const self = itemsUrl([...params]);
    const next = itemsUrl([...[...params].filter(([k]) => k !== 'offset'), ['offset', String(offset + page.length)]]);
    const head = JSON.stringify({ type: 'FeatureCollection', numberMatched: matched.length, numberReturned: page.length, timeStamp: new Date().toISOString() });
    const links = JSON.stringify([
      link(self, 'self', GEOJSON, 'This page'),
      link(withF(self, 'html'), 'alternate', HTML_MEDIA, 'This page as HTML'),
      ...(offset + page.length < matched.length ? [link(next, 'next', GEOJSON, 'The next page')] : []),
      link(url(b), 'collection', JSON_MEDIA, 'Regions'),
    ]);
    if (html) {
      const features = matched.slice(offset, offset + page.length).map(shown);
      const listed = [link(self, 'self', HTML_MEDIA, 'This page'), ...(offset + page.length < matched.length ? [link(withF(next, 'html'), 'next', HTML_MEDIA, 'The next page')] : [])];
      return c.body(itemsHtml(b, self, REGIONS, { features, numberMatched: matched.length, numberReturned: page.length, links: listed }), 200, HTML_HEADERS);
    }
    // The kept features spliced in as written: no page is parsed or stringified whole.
    return c.body(`${head.slice(0, -1)},"features":[${page.join(',')}],"links":${links}}`, 200, { 'Content-Type': GEOJSON });
  });

  mount('region', async (c) => {
    const id = c.req.param('regionId') ?? '';
    const region = (await regions()).find((r) => r.id === id);
    if (!region) throw new ApiError('not_found', `No region '${id}'. GET ${PATHS.features}/collections/${REGIONS_COLLECTION}/items lists them (set=huc8 for one set).`);
    const self = `${url(base(c))}/items/${encodeURIComponent(id)}`;
    if (responseEncoding(c) === 'html') return c.body(featureHtml(base(c), self, REGIONS, shown(region)), 200, HTML_HEADERS);
    return c.body(JSON.stringify({ ...feature(region), links: [link(self, 'self', GEOJSON, 'This region'), link(url(base(c)), 'collection', JSON_MEDIA, 'Regions')] }), 200, { 'Content-Type': GEOJSON });
  });
}

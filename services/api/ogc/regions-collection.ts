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
import type { BaseUrlOptions } from '../http/links.js';
import { baseUrl, encodeValue } from '../http/links.js';
import type { Mount } from '../http/mount.js';
import { PATHS, PIN_PARAM, REGIONS_COLLECTION } from '../http/paths.js';
import { GEOJSON, JSON_MEDIA, link, SCHEMA_MEDIA } from './feature-links.js';
import { CRS84, parseBbox } from './items-query.js';

export { REGIONS_COLLECTION };
export const REGIONS_LIMIT = { default: 100, max: 10000 } as const;
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
      link(`${url(base)}/queryables`, 'http://www.opengis.net/def/rel/ogc/1.0/queryables', SCHEMA_MEDIA, 'The fields it filters by'),
    ],
  };
}

const feature = (r: RegionFeature) => ({ type: 'Feature', id: r.id, bbox: r.bbox, geometry: r.geometry, properties: { RegionId: r.id, name: r.name, set: r.set } });

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
  if (f !== undefined && f !== 'json' && f !== 'geojson') throw invalid('f', `f can only be json (GeoJSON, the one encoding served); got '${f}'.`);
  return {
    limit: count('limit', single('limit'), REGIONS_LIMIT.default, REGIONS_LIMIT.max),
    offset: count('offset', single('offset'), 0, 1e9),
    bbox: single('bbox') === undefined ? undefined : parseBbox(single('bbox')!),
    sets: single('set')?.split(',').map((s) => s.trim()).filter(Boolean),
  };
}

/** Registers the collection's routes; called before the generic collection routes, which would take `regions` for a resource. */
export function registerRegions(mount: Mount, regions: RegionSource, links: BaseUrlOptions): void {
  const base = (c: Context) => baseUrl(c.req.url, c.req.raw.headers, links);
  mount('regionsCollection', async (c) => c.json(await describeRegions(base(c), regions)));
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
    const page = matched.slice(offset, offset + limit);
    const b = base(c);
    const itemsUrl = (pairs: readonly (readonly [string, string])[]) =>
      `${url(b)}/items${pairs.length ? `?${pairs.map(([k, v]) => `${encodeValue(k)}=${encodeValue(v)}`).join('&')}` : ''}`;
    const self = itemsUrl([...params]);
    const next = itemsUrl([...[...params].filter(([k]) => k !== 'offset'), ['offset', String(offset + limit)]]);
    return c.body(JSON.stringify({
      type: 'FeatureCollection',
      numberMatched: matched.length,
      numberReturned: page.length,
      timeStamp: new Date().toISOString(),
      features: page.map(feature),
      links: [
        link(self, 'self', GEOJSON, 'This page'),
        ...(offset + limit < matched.length ? [link(next, 'next', GEOJSON, 'The next page')] : []),
        link(url(b), 'collection', JSON_MEDIA, 'Regions'),
      ],
    }), 200, { 'Content-Type': GEOJSON });
  });

  mount('region', async (c) => {
    const id = c.req.param('regionId') ?? '';
    const region = (await regions()).find((r) => r.id === id);
    if (!region) throw new ApiError('not_found', `No region '${id}'. GET ${PATHS.features}/collections/${REGIONS_COLLECTION}/items lists them (set=huc8 for one set).`);
    const self = `${url(base(c))}/items/${encodeURIComponent(id)}`;
    return c.body(JSON.stringify({ ...feature(region), links: [link(self, 'self', GEOJSON, 'This region'), link(url(base(c)), 'collection', JSON_MEDIA, 'Regions')] }), 200, { 'Content-Type': GEOJSON });
  });
}

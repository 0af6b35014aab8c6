import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readRegionSets, regionFeaturesOf, type RegionFeature } from '../schemas/region-sets.js';
import { boundaryExtents, type Extent } from './boundary-extents.js';

/**
 * Region polygons for RegionId memberships. Countries and their first-level subdivisions come from the
 * world-geojson npm package (GPL-3.0-or-later data, read from node_modules, no network): every country it has
 * subdivisions for whose codes are mapped below (`boundaryCountries`); hubs and other regions from the optional
 * REGIONS_FILE (its files and folders of sets, read by schemas/region-sets.ts). Each polygon keeps its bounding box so a point is tested only against the few polygons whose box
 * contains it; each boundary file is parsed only when a location lies in one of its extents (`boundaryRegionsAt`).
 */

type Ring = readonly (readonly number[])[];
interface PolygonGeometry {
  readonly type: 'Polygon';
  readonly coordinates: readonly Ring[];
}

interface RegionPart {
  readonly bbox: readonly [number, number, number, number];
  readonly polygon: PolygonGeometry;
}

export interface Region {
  readonly id: string;
  readonly parts: readonly RegionPart[];
}

/** world-geojson file name → two-letter province/territory code. */
export const provinceFiles: Readonly<Record<string, string>> = {
  alberta: 'ab', british_columbia: 'bc', manitoba: 'mb', new_brunswick: 'nb', newfoundland_and_labrador: 'nl',
  nova_scotia: 'ns', northwest_territories: 'nt', nunavut: 'nu', ontario: 'on', prince_edward_island: 'pe',
  quebec: 'qc', saskatchewan: 'sk', yukon: 'yt',
};

/** world-geojson file name → USPS code (ISO 3166-2:US): 49 states and the District of Columbia (the package has no Hawaii file). */
export const usStateFiles: Readonly<Record<string, string>> = {
  alabama: 'al', alaska: 'ak', arizona: 'az', arkansas: 'ar', california: 'ca', colorado: 'co', connecticut: 'ct',
  delaware: 'de', district_of_columbia: 'dc', florida: 'fl', georgia: 'ga', idaho: 'id', illinois: 'il',
  indiana: 'in', iowa: 'ia', kansas: 'ks', kentucky: 'ky', louisiana: 'la', maine: 'me', maryland: 'md',
  massachusetts: 'ma', michigan: 'mi', minnesota: 'mn', mississippi: 'ms', missouri: 'mo', montana: 'mt',
  nebraska: 'ne', nevada: 'nv', new_hampshire: 'nh', new_jersey: 'nj', new_mexico: 'nm', new_york: 'ny',
  north_carolina: 'nc', north_dakota: 'nd', ohio: 'oh', oklahoma: 'ok', oregon: 'or', pennsylvania: 'pa',
  rhode_island: 'ri', south_carolina: 'sc', south_dakota: 'sd', tennessee: 'tn', texas: 'tx', utah: 'ut',
  vermont: 'vt', virginia: 'va', washington: 'wa', west_virginia: 'wv', wisconsin: 'wi', wyoming: 'wy',
};

/** world-geojson file name → ISO 3166-2:AU code (the package has no Australian Capital Territory file). */
export const australiaStateFiles: Readonly<Record<string, string>> = {
  new_south_wales: 'nsw', northern_territory: 'nt', queensland: 'qld', south_australia: 'sa', tasmania: 'tas',
  victoria: 'vic', western_australia: 'wa',
};

/** world-geojson file name → ISO 3166-2:CH canton code. */
export const swissCantonFiles: Readonly<Record<string, string>> = {
  aargau: 'ag', 'appenzell-ausserrhoden': 'ar', 'appenzell-innerrhoden': 'ai', 'basel-landschaft': 'bl', 'basel-stadt': 'bs',
  berne: 'be', fribourg: 'fr', geneva: 'ge', glarus: 'gl', grisons: 'gr', jura: 'ju', lucerne: 'lu', 'neuchâtel': 'ne',
  nidwalden: 'nw', obwalden: 'ow', schaffhausen: 'sh', schwyz: 'sz', solothurn: 'so', 'st-gallen': 'sg', thurgau: 'tg',
  ticino: 'ti', uri: 'ur', valais: 'vs', vaud: 'vd', zug: 'zg', zurich: 'zh',
};

/**
 * The countries whose boundaries give RegionIds: `admin.2.<ISO 3166-1 alpha-2>` for the country, and
 * `admin.4.<country>.<subdivision code>` for each subdivision file. world-geojson also has India's and Thailand's
 * subdivisions, not mapped: their ISO 3166-2 codes are not in the package, and a guessed code would be a wrong Id.
 */
export const boundaryCountries: readonly { readonly code: string; readonly country: string; readonly dir: string; readonly ext: string; readonly subdivisions: Readonly<Record<string, string>> }[] = [
  { code: 'ca', country: 'countries/canada.json', dir: 'states/canada', ext: '.json', subdivisions: provinceFiles },
  { code: 'us', country: 'countries/usa.json', dir: 'states/usa', ext: '.json', subdivisions: usStateFiles },
  { code: 'au', country: 'countries/australia.json', dir: 'states/australia', ext: '.json', subdivisions: australiaStateFiles },
  { code: 'ch', country: 'countries/switzerland.json', dir: 'states/switzerland', ext: '.geojson', subdivisions: swissCantonFiles },
];

function partsOf(geometry: unknown, where: string): RegionPart[] {
  const g = geometry as { type?: string; coordinates?: unknown } | null;
  const polygons: Ring[][] =
    g?.type === 'Polygon' ? [g.coordinates as Ring[]] : g?.type === 'MultiPolygon' ? (g.coordinates as Ring[][]) : [];
  if (polygons.length === 0) throw new Error(`${where}: geometry must be a Polygon or MultiPolygon`);
  return polygons.map((coordinates) => {
    let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const p of coordinates[0] ?? []) {
      const [x = NaN, y = NaN] = p;
      if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`${where}: coordinates must be [longitude, latitude] numbers`);
      minX = Math.min(minX, x), maxX = Math.max(maxX, x), minY = Math.min(minY, y), maxY = Math.max(maxY, y);
    }
    return { bbox: [minX, minY, maxX, maxY] as const, polygon: { type: 'Polygon', coordinates } };
  });
}

function featuresOf(json: unknown, where: string): { properties?: Record<string, unknown>; geometry?: unknown }[] {
  const fc = json as { type?: string; features?: unknown };
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features)) throw new Error(`${where}: not a GeoJSON FeatureCollection`);
  return fc.features as { properties?: Record<string, unknown>; geometry?: unknown }[];
}

const regionOf = (r: RegionFeature): Region => ({ id: r.id, parts: partsOf(r.geometry, `${r.source} (${r.id})`) });

/** Regions of a GeoJSON FeatureCollection whose features carry `properties.RegionId` (a REGIONS_FILE file). */
export function regionsFromGeoJson(json: unknown, where: string): Region[] {
  return regionFeaturesOf(json, where).map(regionOf);
}

function regionOfFile(json: unknown, id: string, where: string): Region {
  return { id, parts: featuresOf(json, where).flatMap((f, i) => partsOf(f.geometry, `${where} feature ${i}`)) };
}

/** One world-geojson file and the RegionId its polygons give, in the order `regionsContaining` lists them. */
export interface BoundaryFile {
  readonly id: string;
  readonly path: string;
}

/** Every boundary file: each country of `boundaryCountries`, then its subdivisions. */
export const boundaryFiles: readonly BoundaryFile[] = boundaryCountries.flatMap(({ code, country, dir, ext, subdivisions }) => [
  { id: `admin.2.${code}`, path: country },
  ...Object.entries(subdivisions).map(([file, sub]) => ({ id: `admin.4.${code}.${sub}`, path: `${dir}/${file}${ext}` })),
]);

type Box = [number, number, number, number];
const area = (b: readonly number[]) => (b[2]! - b[0]!) * (b[3]! - b[1]!);
const union = (a: readonly number[], b: readonly number[]): Box => [Math.min(a[0]!, b[0]!), Math.min(a[1]!, b[1]!), Math.max(a[2]!, b[2]!), Math.max(a[3]!, b[3]!)];

/**
 * A few boxes that together hold every part's box: a point in none of them is in none of the region's polygons.
 * Parts join the box they grow least (largest parts first), and start a box of their own when that would add more
 * than a square degree, up to `most` boxes: one box around all the parts would reach far past the land, as the US
 * outline's Pacific islands and Alaska's Aleutians (on both sides of the antimeridian) do around the globe. A file of
 * one large polygon keeps its one box (Nunavut's reaches James Bay, so a location at 52° N parses it).
 */
export function extentsOf(region: Region, most = 16): Extent[] {
  const boxes: Box[] = [];
  for (const { bbox } of [...region.parts].sort((a, b) => area(b.bbox) - area(a.bbox))) {
    let best = -1;
    let growth = Infinity;
    boxes.forEach((box, i) => {
      const g = area(union(box, bbox)) - area(box);
      if (g < growth) [best, growth] = [i, g];
    });
    if (best >= 0 && (growth <= 1 || boxes.length >= most)) boxes[best] = union(boxes[best]!, bbox);
    else boxes.push([...bbox]);
  }
  return boxes;
}

const inExtent = ([x, y]: readonly [number, number], e: Extent) => x >= e[0] && x <= e[2] && y >= e[1] && y <= e[3];

// Every file together is ~90 MB of JSON, most of it the US states and Canada's provinces: each is parsed on first
// need and kept for the process.
const parsed = new Map<string, Promise<Region>>();

function boundaryRegion({ id, path }: BoundaryFile): Promise<Region> {
  let region = parsed.get(path);
  if (!region) {
    region = (async () => {
      const root = dirname(createRequire(import.meta.url).resolve('world-geojson/package.json'));
      return regionOfFile(JSON.parse(await readFile(join(root, path), 'utf8')) as unknown, id, `world-geojson ${path}`);
    })();
    parsed.set(path, region);
  }
  return region;
}

/**
 * The boundary regions that can contain any of the points, in `boundaryFiles` order: a file is parsed only when a
 * point lies in one of its extents (boundary-extents.ts, measured from the same files), so no point loses a region it
 * is in, and a build with no location parses nothing.
 */
export async function boundaryRegionsAt(points: Iterable<readonly [number, number]>): Promise<Region[]> {
  const at = [...points];
  const regions: Region[] = [];
  for (const file of boundaryFiles) {
    const extents = boundaryExtents[file.path];
    if (!extents) throw new Error(`internal error: no extent for world-geojson ${file.path} in boundary-extents.ts`);
    if (at.some((p) => extents.some((e) => inExtent(p, e)))) regions.push(await boundaryRegion(file));
  }
  return regions;
}

/** Every boundary region (the tests and the extents' generator). */
export async function boundaryRegions(): Promise<Region[]> {
  const regions: Region[] = [];
  for (const file of boundaryFiles) regions.push(await boundaryRegion(file));
  return regions;
}

/** The regions of REGIONS_FILE: one file, or several files and folders of them separated by commas (schemas/region-sets.ts). */
export async function loadRegionsFile(value: string): Promise<Region[]> {
  return (await readRegionSets(value)).map(regionOf);
}

/** Ids of the regions containing the point (boundary included), in the order given. */
export function regionsContaining(longitude: number, latitude: number, regions: readonly Region[]): string[] {
  return regions
    .filter((r) =>
      r.parts.some(
        ({ bbox, polygon }) =>
          longitude >= bbox[0] && longitude <= bbox[2] && latitude >= bbox[1] && latitude <= bbox[3] &&
          booleanPointInPolygon([longitude, latitude], polygon as Parameters<typeof booleanPointInPolygon>[1]),
      ),
    )
    .map((r) => r.id);
}

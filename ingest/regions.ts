import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Region polygons for RegionId memberships. Canada and its provinces/territories come from the world-geojson
 * npm package (GPL-3.0-or-later data, read from node_modules, no network); hubs and other regions from the
 * optional REGIONS_FILE. Each polygon keeps its bounding box so a point is tested only against the few
 * polygons whose box contains it.
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

/** Regions of a GeoJSON FeatureCollection whose features carry `properties.RegionId` (REGIONS_FILE). */
export function regionsFromGeoJson(json: unknown, where: string): Region[] {
  const byId = new Map<string, RegionPart[]>();
  featuresOf(json, where).forEach((feature, i) => {
    const id = feature.properties?.RegionId;
    if (typeof id !== 'string' || id === '') throw new Error(`${where}: feature ${i} has no properties.RegionId`);
    byId.set(id, [...(byId.get(id) ?? []), ...partsOf(feature.geometry, `${where} feature ${i} (${id})`)]);
  });
  return [...byId].map(([id, parts]) => ({ id, parts }));
}

function regionOfFile(json: unknown, id: string, where: string): Region {
  return { id, parts: featuresOf(json, where).flatMap((f, i) => partsOf(f.geometry, `${where} feature ${i}`)) };
}

let canada: Promise<Region[]> | undefined;

/** `admin.2.ca` and the thirteen `admin.4.ca.<code>` regions, loaded once per process. */
export function canadaRegions(): Promise<Region[]> {
  canada ??= (async () => {
    const root = dirname(createRequire(import.meta.url).resolve('world-geojson/package.json'));
    const load = async (path: string) => JSON.parse(await readFile(join(root, path), 'utf8')) as unknown;
    const regions = [regionOfFile(await load('countries/canada.json'), 'admin.2.ca', 'world-geojson countries/canada.json')];
    for (const [file, code] of Object.entries(provinceFiles)) {
      const path = `states/canada/${file}.json`;
      regions.push(regionOfFile(await load(path), `admin.4.ca.${code}`, `world-geojson ${path}`));
    }
    return regions;
  })();
  return canada;
}

export async function loadRegionsFile(path: string): Promise<Region[]> {
  return regionsFromGeoJson(JSON.parse(await readFile(path, 'utf8')), path);
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

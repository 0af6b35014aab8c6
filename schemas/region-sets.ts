import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The regions of REGIONS_FILE, read the one way ingest (memberships) and the API (the `regions` collection, the
 * explorer's map) both need: each region's Id, name, set and outline. REGIONS_FILE names one GeoJSON file, or
 * several separated by commas, each a file or a folder whose `*.geojson` and `*.json` files are read in name order
 * (a folder of sets: `regions/huc8.geojson`, `regions/huc10.geojson`). A region's set is its `set` property, or
 * the part of its RegionId before the first dot (`huc8.04010301` is in `huc8`).
 */

export type RegionGeometry =
  | { readonly type: 'Polygon'; readonly coordinates: readonly (readonly (readonly number[])[])[] }
  | { readonly type: 'MultiPolygon'; readonly coordinates: readonly (readonly (readonly (readonly number[])[])[])[] };

export interface RegionFeature {
  readonly id: string;
  readonly name: string;
  readonly set: string;
  /** The outline: one feature's geometry, or a MultiPolygon of every feature that shares the Id in its file. */
  readonly geometry: RegionGeometry;
  /** [west, south, east, north] of the outline's exterior rings. */
  readonly bbox: readonly [number, number, number, number];
  /** The file the region came from (errors name it). */
  readonly source: string;
}

/** The paths REGIONS_FILE names, in order: commas separate them, blanks around them are ignored. */
export function regionsFileEntries(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

const isRegionFile = (name: string) => /\.(geo)?json$/i.test(name) && !name.startsWith('.');

/** Each file REGIONS_FILE names, a folder standing for its region files. */
export async function regionFiles(value: string | undefined): Promise<string[]> {
  const files: string[] = [];
  for (const entry of regionsFileEntries(value)) {
    const info = await stat(entry).catch(() => undefined);
    if (!info) throw new Error(`REGIONS_FILE names ${entry}, which does not exist: give GeoJSON files or folders of them, separated by commas`);
    if (!info.isDirectory()) files.push(entry);
    else files.push(...(await readdir(entry)).filter(isRegionFile).sort().map((name) => join(entry, name)));
  }
  return files;
}

type Polygon = readonly (readonly (readonly number[])[])[];

function polygonsOf(geometry: unknown, where: string): Polygon[] {
  const g = geometry as { type?: unknown; coordinates?: unknown } | null;
  const polygons = g?.type === 'Polygon' ? [g.coordinates] : g?.type === 'MultiPolygon' ? g.coordinates : undefined;
  if (!Array.isArray(polygons) || polygons.length === 0) throw new Error(`${where}: geometry must be a Polygon or MultiPolygon`);
  for (const polygon of polygons) {
    const ok = Array.isArray(polygon) && polygon.length > 0 && polygon.every((ring) => Array.isArray(ring) && ring.length >= 4 &&
      ring.every((p) => Array.isArray(p) && p.length >= 2 && Number.isFinite(p[0]) && Number.isFinite(p[1])));
    if (!ok) throw new Error(`${where}: each ring must be at least four [longitude, latitude] number pairs`);
  }
  return polygons as Polygon[];
}

function bboxOf(polygons: readonly Polygon[]): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const polygon of polygons) for (const [x = NaN, y = NaN] of polygon[0] ?? []) (w = Math.min(w, x)), (e = Math.max(e, x)), (s = Math.min(s, y)), (n = Math.max(n, y));
  return [w, s, e, n];
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The regions of one parsed FeatureCollection; features sharing a RegionId are one region of several parts. */
export function regionFeaturesOf(json: unknown, source: string): RegionFeature[] {
  const fc = json as { type?: unknown; features?: unknown } | null;
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features)) throw new Error(`${source}: not a GeoJSON FeatureCollection`);
  const byId = new Map<string, { name: string; set: string; polygons: Polygon[] }>();
  (fc.features as { properties?: Record<string, unknown> | null; geometry?: unknown }[]).forEach((feature, i) => {
    const p = feature?.properties ?? {};
    const id = text(p['RegionId']);
    if (!id) throw new Error(`${source}: feature ${i} has no properties.RegionId`);
    const polygons = polygonsOf(feature.geometry, `${source} feature ${i} (${id})`);
    const known = byId.get(id);
    if (known) known.polygons.push(...polygons);
    else byId.set(id, { name: text(p['name']) ?? text(p['Name']) ?? id, set: text(p['set']) ?? id.split('.')[0]!, polygons: [...polygons] });
  });
  return [...byId].map(([id, { name, set, polygons }]) => ({
    id, name, set, source, bbox: bboxOf(polygons),
    geometry: polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0]! } : { type: 'MultiPolygon', coordinates: polygons },
  }));
}

/** Every region REGIONS_FILE names, in file order; an Id in two files is refused (which would its members be?). */
export async function readRegionSets(value: string | undefined): Promise<RegionFeature[]> {
  const regions: RegionFeature[] = [];
  const seen = new Map<string, string>();
  for (const file of await regionFiles(value)) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      throw new Error(`${file}: not readable JSON (${(err as Error).message})`);
    }
    for (const region of regionFeaturesOf(json, file)) {
      const other = seen.get(region.id);
      if (other !== undefined) throw new Error(`RegionId '${region.id}' is in both ${other} and ${file}: each region must be in one file (give each set its own prefix, such as huc8. and huc10.)`);
      seen.set(region.id, file);
      regions.push(region);
    }
  }
  return regions;
}

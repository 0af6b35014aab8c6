/**
 * Builds the explorer page's assets (services/api/explore/) into one folder the data API serves at
 * /explore/assets/: the page's script and styles bundled by esbuild (Leaflet and uPlot included, so nothing
 * comes from a CDN), and the provinces and territories of Canada from world-geojson, simplified to a size a
 * browser draws at once (the source's coordinates are far too many to send).
 *
 *   node --import tsx scripts/build/build-explore.ts [outDir]   (default node_modules/.cache/tributary/explore)
 *
 * `npm run build` (make build, make start) runs it; the browser test builds into a temporary folder.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
export const DEFAULT_OUT = join(ROOT, 'node_modules/.cache/tributary/explore');

/** world-geojson file → RegionId and name, as ingest/regions.ts names the provinces. */
const PROVINCES: Readonly<Record<string, [string, string]>> = {
  alberta: ['ab', 'Alberta'], british_columbia: ['bc', 'British Columbia'], manitoba: ['mb', 'Manitoba'],
  new_brunswick: ['nb', 'New Brunswick'], newfoundland_and_labrador: ['nl', 'Newfoundland and Labrador'],
  nova_scotia: ['ns', 'Nova Scotia'], northwest_territories: ['nt', 'Northwest Territories'], nunavut: ['nu', 'Nunavut'],
  ontario: ['on', 'Ontario'], prince_edward_island: ['pe', 'Prince Edward Island'], quebec: ['qc', 'Quebec'],
  saskatchewan: ['sk', 'Saskatchewan'], yukon: ['yt', 'Yukon'],
};

type Ring = number[][];
/** Degrees: points closer than this to the last kept one are dropped; islands smaller than MIN_SPAN vanish. */
const STEP = 0.04;
const MIN_SPAN = 0.25;

function simplifyRing(ring: Ring): Ring | undefined {
  const xs = ring.map((p) => p[0]!), ys = ring.map((p) => p[1]!);
  if (Math.max(...xs) - Math.min(...xs) + Math.max(...ys) - Math.min(...ys) < MIN_SPAN) return undefined;
  const out: Ring = [];
  for (const [x = 0, y = 0] of ring) {
    const last = out[out.length - 1];
    if (!last || Math.abs(x - last[0]!) + Math.abs(y - last[1]!) >= STEP) out.push([Math.round(x * 1000) / 1000, Math.round(y * 1000) / 1000]);
  }
  out.push(out[0]!);
  return out.length >= 4 ? out : undefined;
}

/** Outer rings only: at this scale holes (lakes) are noise, and the points drawn on top matter more. */
function simplifiedPolygons(geometry: { type: string; coordinates: unknown }): Ring[][] {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates as Ring[]] : (geometry.coordinates as Ring[][]);
  return polygons.flatMap((p) => {
    const outer = p[0] && simplifyRing(p[0]);
    return outer ? [[outer]] : [];
  });
}

export function provincesGeoJson(): object {
  const root = dirname(createRequire(import.meta.url).resolve('world-geojson/package.json'));
  const features = Object.entries(PROVINCES).map(([file, [code, name]]) => {
    const fc = JSON.parse(readFileSync(join(root, 'states/canada', `${file}.json`), 'utf8')) as { features: { geometry: { type: string; coordinates: unknown } }[] };
    const coordinates = fc.features.flatMap((f) => simplifiedPolygons(f.geometry));
    return { type: 'Feature', properties: { RegionId: `admin.4.ca.${code}`, name }, geometry: { type: 'MultiPolygon', coordinates } };
  });
  return { type: 'FeatureCollection', features };
}

export async function buildExplore(outDir: string = DEFAULT_OUT): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: { explore: join(ROOT, 'services/api/explore/main.ts') },
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'esm',
    target: 'es2020',
    outdir: outDir,
    // Leaflet's stylesheet names a few images; inlined, the page needs no other file.
    loader: { '.png': 'dataurl', '.svg': 'dataurl' },
    logLevel: 'warning',
  });
  writeFileSync(join(outDir, 'provinces.json'), JSON.stringify(provincesGeoJson()));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const out = resolve(process.argv[2] ?? DEFAULT_OUT);
  await buildExplore(out);
  console.log(`explorer assets built into ${out}`);
}

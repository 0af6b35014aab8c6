import { boundaryFiles, boundaryRegions, extentsOf } from '../../ingest/regions.js';

/**
 * Writes ingest/boundary-extents.ts from the installed world-geojson: each boundary file's extents, so that ingest
 * parses a file only when a location lies in it. ingest/regions.test.ts fails when the table and the files differ
 * (a new world-geojson version): run `npx tsx scripts/regions/boundary-extents.ts > ingest/boundary-extents.ts`.
 */
const regions = await boundaryRegions();
const version = (await import('world-geojson/package.json', { with: { type: 'json' } })).default.version as string;
const rows = boundaryFiles.map((f, i) => `  '${f.path}': [${extentsOf(regions[i]!).map((e) => `[${e.join(', ')}]`).join(', ')}],`);
process.stdout.write(`/**
 * The extents (a few boxes that hold every polygon) of each world-geojson ${version} boundary file ingest/regions.ts
 * reads: a location outside a file's extents is in none of its polygons, so the file need not be parsed. Generated
 * by scripts/regions/boundary-extents.ts (regions.ts, extentsOf); ingest/regions.test.ts checks that they hold every
 * polygon of the installed files.
 */

export type Extent = readonly [minLongitude: number, minLatitude: number, maxLongitude: number, maxLatitude: number];

export const boundaryExtents: Readonly<Record<string, readonly Extent[]>> = {
${rows.join('\n')}
};
`);

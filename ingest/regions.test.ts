import { describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { boundaryExtents } from './boundary-extents.js';
import { boundaryCountries, boundaryFiles, boundaryRegions, boundaryRegionsAt, extentsOf, loadRegionsFile, regionsContaining, regionsFromGeoJson } from './regions.js';

const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;

describe('regions', () => {
  it.each([
    ['Edmonton', -113.4938, 53.5461, ['admin.2.ca', 'admin.4.ca.ab']],
    ['Vancouver', -123.1207, 49.2827, ['admin.2.ca', 'admin.4.ca.bc']],
    ['Whitehorse', -135.0568, 60.7212, ['admin.2.ca', 'admin.4.ca.yt']],
    ['Yellowknife', -114.3718, 62.454, ['admin.2.ca', 'admin.4.ca.nt']],
    ['Québec', -71.2082, 46.8139, ['admin.2.ca', 'admin.4.ca.qc']],
    ['Seattle', -122.3321, 47.6062, ['admin.2.us', 'admin.4.us.wa']],
    ['Minneapolis', -93.265, 44.9778, ['admin.2.us', 'admin.4.us.mn']],
    ['Duluth', -92.1005, 46.7867, ['admin.2.us', 'admin.4.us.mn']],
    ['Superior, Wisconsin', -92.1041, 46.7208, ['admin.2.us', 'admin.4.us.wi']],
    ['Washington, D.C.', -77.0365, 38.8977, ['admin.2.us', 'admin.4.us.dc']],
    ['Anchorage', -149.9003, 61.2181, ['admin.2.us', 'admin.4.us.ak']],
    ['Sydney', 151.2093, -33.8688, ['admin.2.au', 'admin.4.au.nsw']],
    ['Zürich', 8.5417, 47.3769, ['admin.2.ch', 'admin.4.ch.zh']],
    ['Mid-Atlantic', -40, 40, []],
  ])('%s', async (_name, lon, lat, expected) => {
    expect(regionsContaining(lon, lat, await boundaryRegions())).toEqual(expected);
    expect(regionsContaining(lon, lat, await boundaryRegionsAt([[lon, lat]]))).toEqual(expected);
  });

  it('parses only the boundary files a location can lie in, and gives each location the ids every file gives it', async () => {
    const ids = (regions: readonly { id: string }[]) => regions.map((r) => r.id);
    expect(await boundaryRegionsAt([])).toEqual([]);
    // Regina and Zürich: no US state is parsed (the US outline is, as its islands' box spans the Pacific).
    const canadaSwiss: [number, number][] = [[-104.6189, 50.4452], [8.5417, 47.3769]];
    const parsed = ids(await boundaryRegionsAt(canadaSwiss));
    expect(parsed).toEqual(expect.arrayContaining(['admin.2.ca', 'admin.4.ca.sk', 'admin.2.ch', 'admin.4.ch.zh']));
    expect(parsed.filter((id) => id.startsWith('admin.4.us.') || id.startsWith('admin.4.au.'))).toEqual([]);
    const every = await boundaryRegions();
    for (const [lon, lat] of canadaSwiss) expect(regionsContaining(lon, lat, await boundaryRegionsAt(canadaSwiss))).toEqual(regionsContaining(lon, lat, every));
    // Seattle with them: Washington is parsed, and gives its id.
    const withSeattle = await boundaryRegionsAt([...canadaSwiss, [-122.3321, 47.6062]]);
    expect(ids(withSeattle)).toContain('admin.4.us.wa');
    expect(ids(withSeattle)).not.toContain('admin.4.us.fl');
    expect(regionsContaining(-122.3321, 47.6062, withSeattle)).toEqual(['admin.2.us', 'admin.4.us.wa']);
  });

  it('gives every point of a world grid and every corner of every extent the same ids as all the boundary files do', async () => {
    const every = await boundaryRegions();
    const points: [number, number][] = [];
    for (let lon = -180; lon <= 180; lon += 1.5) for (let lat = -60; lat <= 84; lat += 1.5) points.push([lon, lat]);
    for (const extents of Object.values(boundaryExtents)) for (const [x0, y0, x1, y1] of extents) points.push([x0, y0], [x0, y1], [x1, y0], [x1, y1]);
    const differ = [];
    for (const [lon, lat] of points) {
      const near = regionsContaining(lon, lat, await boundaryRegionsAt([[lon, lat]]));
      if (near.join() !== regionsContaining(lon, lat, every).join()) differ.push([lon, lat]);
    }
    expect(differ).toEqual([]);
  });

  it('holds every polygon of each boundary file in the file\'s extents (else: npx tsx scripts/regions/boundary-extents.ts > ingest/boundary-extents.ts)', async () => {
    const every = await boundaryRegions();
    expect(Object.keys(boundaryExtents)).toEqual(boundaryFiles.map((f) => f.path));
    const outside = boundaryFiles.flatMap((f, i) =>
      every[i]!.parts
        .filter(({ bbox: [x0, y0, x1, y1] }) => !boundaryExtents[f.path]!.some(([a, b, c, d]) => x0 >= a && y0 >= b && x1 <= c && y1 <= d))
        .map(({ bbox }) => `${f.path} ${bbox.join(' ')}`),
    );
    expect(outside).toEqual([]);
    // The generator's boxes hold them too, so that regenerating the table keeps the rule.
    for (const r of every) for (const { bbox: [x0, y0, x1, y1] } of r.parts) expect(extentsOf(r).some(([a, b, c, d]) => x0 >= a && y0 >= b && x1 <= c && y1 <= d), r.id).toBe(true);
  });

  it('maps every subdivision file of each country it covers, and no file that is not there', async () => {
    const root = dirname(createRequire(import.meta.url).resolve('world-geojson/package.json'));
    for (const { dir, ext, subdivisions } of boundaryCountries) {
      const files = (await readdir(join(root, dir))).filter((f) => f.endsWith(ext)).map((f) => f.slice(0, -ext.length)).sort();
      expect(Object.keys(subdivisions).sort(), dir).toEqual(files);
      expect(new Set(Object.values(subdivisions)).size, dir).toBe(files.length);
    }
  });

  it('adds every REGIONS_FILE feature containing the point', async () => {
    const regions = await loadRegionsFile(hubs);
    expect(regions.map((r) => r.id)).toContain('hub.pacific');
    expect(regionsContaining(-123.1207, 49.2827, regions)).toContain('hub.pacific');
  });

  it('rejects features without a RegionId or with other geometries', () => {
    const square = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };
    expect(() => regionsFromGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: square }] }, 'f')).toThrow(/RegionId/);
    expect(() => regionsFromGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { RegionId: 'x' }, geometry: { type: 'Point', coordinates: [0, 0] } }] }, 'f')).toThrow(/Polygon/);
    const multi = regionsFromGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { RegionId: 'x' }, geometry: { type: 'MultiPolygon', coordinates: [square.coordinates] } }] }, 'f');
    expect(regionsContaining(0.5, 0.5, multi)).toEqual(['x']);
  });
});

import { describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { boundaryCountries, boundaryRegions, loadRegionsFile, regionsContaining, regionsFromGeoJson } from './regions.js';

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
